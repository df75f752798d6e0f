package drift

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/openapi/openapitest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

const manager = "terraform-provider-dwsfallback"

// podTypes are the schemas of a real API server (client-go's recorded documents): tolerations and node selectors
// atomic, containers and env keyed by name, as in the pod templates of a RayJob.
func podTypes(t *testing.T) *Types {
	t.Helper()
	ty, err := FetchTypes(openapitest.NewEmbeddedFileClient(), schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

// writtenPod is a pod as the server answers our write: the written fields owned by our manager, and a
// defaulted field (terminationMessagePath) the server filled in.
func writtenPod(t *testing.T, ty *Types) map[string]any {
	t.Helper()
	sent := map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "p", "namespace": "default", "labels": map[string]any{"kueue.x-k8s.io/queue-name": "q"}},
		"spec": map[string]any{
			"nodeSelector": map[string]any{"cloud.google.com/gke-tpu-topology": "4x4"},
			"tolerations":  []any{map[string]any{"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}},
			"containers": []any{map[string]any{"name": "head", "image": "ray:1",
				"env": []any{map[string]any{"name": "A", "value": "1"}}}},
		},
	}
	tv, err := ty.typed(sent)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := tv.ToFieldSet()
	if err != nil {
		t.Fatal(err)
	}
	// As the server does: a map or item that exists is a member too (managedFields' "." entries), and identity
	// fields are nobody's.
	fs.Insert(fieldpath.MakePathOrDie("spec"))
	fs.Insert(fieldpath.MakePathOrDie("metadata", "labels"))
	fs.Insert(fieldpath.MakePathOrDie("spec", "containers", fieldpath.KeyByFields("name", "head")))
	fs = fs.Difference(fieldpath.NewSet(fieldpath.MakePathOrDie("apiVersion"), fieldpath.MakePathOrDie("kind"),
		fieldpath.MakePathOrDie("metadata", "name"), fieldpath.MakePathOrDie("metadata", "namespace")))
	raw, err := fs.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: sent}
	u.SetManagedFields([]metav1.ManagedFieldsEntry{
		{Manager: manager, Operation: metav1.ManagedFieldsOperationApply, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: raw}},
	})
	c := sent["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	c["terminationMessagePath"] = "/dev/termination-log"
	return roundTrip(t, u.Object)
}

func roundTrip(t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDiff(t *testing.T) {
	ty := podTypes(t)
	spec := func(o map[string]any) map[string]any { return o["spec"].(map[string]any) }
	head := func(o map[string]any) map[string]any { return spec(o)["containers"].([]any)[0].(map[string]any) }
	cases := map[string]struct {
		edit func(live map[string]any)
		want []string
	}{
		"untouched":                  {edit: func(map[string]any) {}},
		"another writer's own field": {edit: func(o map[string]any) { spec(o)["priority"] = int64(7) }},
		"a leaf changed": {
			edit: func(o map[string]any) { head(o)["image"] = "ray:2" },
			want: []string{`.spec.containers[name="head"].image`},
		},
		"an atomic map removed": {
			edit: func(o map[string]any) { delete(spec(o), "nodeSelector") },
			want: []string{".spec.nodeSelector"},
		},
		"an atomic map given an extra key": {
			edit: func(o map[string]any) { spec(o)["nodeSelector"].(map[string]any)["x"] = "y" },
			want: []string{".spec.nodeSelector /x"},
		},
		"an atomic list given an extra item": {
			edit: func(o map[string]any) {
				spec(o)["tolerations"] = append(spec(o)["tolerations"].([]any), map[string]any{"key": "x", "operator": "Exists"})
			},
			want: []string{".spec.tolerations (1 items, now 2)"},
		},
		"a keyed item removed": {
			edit: func(o map[string]any) { head(o)["env"] = []any{} },
			want: []string{`.spec.containers[name="head"].env[name="A"]`},
		},
		"a keyed item of another writer added": {
			edit: func(o map[string]any) {
				head(o)["env"] = append(head(o)["env"].([]any), map[string]any{"name": "B", "value": "2"})
			},
		},
		"a label we set changed": {
			edit: func(o map[string]any) {
				o["metadata"].(map[string]any)["labels"].(map[string]any)["kueue.x-k8s.io/queue-name"] = "other"
			},
			want: []string{".metadata.labels.kueue.x-k8s.io/queue-name"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			checkDiff(t, ty, func(o map[string]any) (Baseline, error) { return ty.Record(o, manager) }, tc.edit, tc.want)
		})
	}
}

func TestRecordNotManaged(t *testing.T) {
	ty := podTypes(t)
	if _, err := ty.Record(writtenPod(t, ty), "kubectl"); !errors.Is(err, ErrNotManaged) {
		t.Fatalf("Record by another manager: %v, want ErrNotManaged", err)
	}
}

// TestDiffWhole: a spec written whole with an update, as the provider writes a ComputeClass: what another writer adds
// to it is drift, since the next write removes it, and is named by its keys down to the first list.
func TestDiffWhole(t *testing.T) {
	ty := podTypes(t)
	spec := func(o map[string]any) map[string]any { return o["spec"].(map[string]any) }
	cases := map[string]struct {
		edit func(live map[string]any)
		want []string
	}{
		"untouched":                 {edit: func(map[string]any) {}},
		"a field added to the spec": {edit: func(o map[string]any) { spec(o)["priority"] = int64(7) }, want: []string{".spec.priority"}},
		"a key with a dot added to a map": {
			edit: func(o map[string]any) { spec(o)["nodeSelector"].(map[string]any)["cloud.google.com/x"] = "y" },
			want: []string{".spec.nodeSelector.cloud.google.com/x"},
		},
		"a field added inside a list item": {
			edit: func(o map[string]any) { spec(o)["tolerations"].([]any)[0].(map[string]any)["value"] = "v" },
			want: []string{".spec.tolerations /0/value"},
		},
		"the spec removed": {edit: func(o map[string]any) { delete(o, "spec") }, want: []string{".spec"}},
		"a label we set changed": {
			edit: func(o map[string]any) {
				o["metadata"].(map[string]any)["labels"].(map[string]any)["kueue.x-k8s.io/queue-name"] = "other"
			},
			want: []string{".metadata.labels.kueue.x-k8s.io/queue-name"},
		},
		"another writer's label": {edit: func(o map[string]any) { o["metadata"].(map[string]any)["labels"].(map[string]any)["x"] = "y" }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			checkDiff(t, ty, func(o map[string]any) (Baseline, error) { return ty.RecordWhole(o, manager, "spec") }, tc.edit, tc.want)
		})
	}
}

// checkDiff records the written pod's baseline, makes the edit on a copy, and requires Diff to name want.
func checkDiff(t *testing.T, ty *Types, record func(map[string]any) (Baseline, error), edit func(map[string]any), want []string) {
	t.Helper()
	written := writtenPod(t, ty)
	b, err := record(written)
	if err != nil {
		t.Fatal(err)
	}
	live := roundTrip(t, written)
	edit(live)
	got, err := ty.Diff(b, live)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
}

// TestDiffOnlyWhole: a ConfigMap's data, compared without a schema: a file changed, added, or moved to binaryData.
func TestDiffOnlyWhole(t *testing.T) {
	written := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "f"},
		"data": map[string]any{"train.py": "print(1)"}}
	b, err := RecordOnlyWhole(written, "data", "binaryData", "immutable")
	if err != nil {
		t.Fatal(err)
	}
	// As kept in private state and read back.
	raw, err := json.Marshal(b)
	if err != nil || json.Unmarshal(raw, &b) != nil {
		t.Fatal(string(raw), err)
	}
	cases := map[string]struct {
		edit func(live map[string]any)
		want []string
	}{
		"untouched":            {edit: func(map[string]any) {}},
		"a label added":        {edit: func(o map[string]any) { o["metadata"].(map[string]any)["labels"] = map[string]any{"x": "y"} }},
		"a file changed":       {edit: func(o map[string]any) { o["data"].(map[string]any)["train.py"] = "print(2)" }, want: []string{".data.train.py"}},
		"a file added":         {edit: func(o map[string]any) { o["data"].(map[string]any)["x.py"] = "" }, want: []string{".data.x.py"}},
		"a binary file added":  {edit: func(o map[string]any) { o["binaryData"] = map[string]any{"x.bin": "AA=="} }, want: []string{".binaryData"}},
		"made immutable":       {edit: func(o map[string]any) { o["immutable"] = true }, want: []string{".immutable"}},
		"every file taken out": {edit: func(o map[string]any) { delete(o, "data") }, want: []string{".data"}},
		"five files added": {
			edit: func(o map[string]any) {
				for _, f := range []string{"a", "b", "c", "d", "e"} {
					o["data"].(map[string]any)[f] = ""
				}
			},
			want: []string{".data"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			live := roundTrip(t, written)
			tc.edit(live)
			got, err := (*Types)(nil).Diff(b, live)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Diff (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRecordWritten: a write recorded from what was sent, as Helm's client-side writes are, finds the same drift as
// one recorded from the manager's managedFields; a field the server defaulted is not the writer's.
func TestRecordWritten(t *testing.T) {
	ty := podTypes(t)
	head := func(o map[string]any) map[string]any {
		return o["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	}
	sent := func(o map[string]any) map[string]any {
		s := roundTrip(t, o)
		delete(s["metadata"].(map[string]any), "managedFields")
		delete(head(s), "terminationMessagePath")
		return s
	}
	cases := map[string]struct {
		edit func(live map[string]any)
		want []string
	}{
		"untouched":             {edit: func(map[string]any) {}},
		"a defaulted field":     {edit: func(o map[string]any) { head(o)["terminationMessagePath"] = "/x" }},
		"a written leaf":        {edit: func(o map[string]any) { head(o)["image"] = "ray:2" }, want: []string{`.spec.containers[name="head"].image`}},
		"a written map removed": {edit: func(o map[string]any) { delete(o["spec"].(map[string]any), "nodeSelector") }, want: []string{".spec.nodeSelector"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			checkDiff(t, ty, func(o map[string]any) (Baseline, error) { return ty.RecordWritten(o, sent(o)) }, tc.edit, tc.want)
		})
	}
}

// TestUnchangedShortcut: an object as the write left it, or changed only where the write did not write, is known
// unchanged without typing it; a change the write owns is not.
func TestUnchangedShortcut(t *testing.T) {
	ty := podTypes(t)
	written := writtenPod(t, ty)
	b, err := ty.Record(written, manager)
	if err != nil {
		t.Fatal(err)
	}
	set := &fieldpath.Set{}
	if err := set.FromJSON(bytes.NewReader(b.Fields)); err != nil {
		t.Fatal(err)
	}
	spec := func(o map[string]any) map[string]any { return o["spec"].(map[string]any) }
	cases := map[string]struct {
		edit func(map[string]any)
		want bool
	}{
		"as written":             {edit: func(map[string]any) {}, want: true},
		"another writer's field": {edit: func(o map[string]any) { spec(o)["priority"] = int64(7) }, want: true},
		"another writer's env": {edit: func(o map[string]any) {
			c := spec(o)["containers"].([]any)[0].(map[string]any)
			c["env"] = append(c["env"].([]any), map[string]any{"name": "B", "value": "2"})
		}, want: true},
		"a written leaf":       {edit: func(o map[string]any) { spec(o)["containers"].([]any)[0].(map[string]any)["image"] = "ray:2" }},
		"an atomic map extra":  {edit: func(o map[string]any) { spec(o)["nodeSelector"].(map[string]any)["x"] = "y" }},
		"a keyed item removed": {edit: func(o map[string]any) { spec(o)["containers"].([]any)[0].(map[string]any)["env"] = []any{} }},
	}
	for name, tc := range cases {
		live := roundTrip(t, written)
		tc.edit(live)
		if got := unchanged(b, set, live); got != tc.want {
			t.Errorf("%s: unchanged = %v, want %v", name, got, tc.want)
		}
	}
}

func BenchmarkDiffUnchanged(b *testing.B) {
	ty := podTypes(&testing.T{})
	written := writtenPod(&testing.T{}, ty)
	base, err := ty.Record(written, manager)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ty.Diff(base, written); err != nil {
			b.Fatal(err)
		}
	}
}
