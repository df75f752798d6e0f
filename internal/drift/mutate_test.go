package drift

import (
	"encoding/json"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMutations(t *testing.T) {
	ty := podTypes(t)
	ms, err := Mutations(writtenPod(t, ty), manager)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	patches := map[string]string{}
	for _, m := range ms {
		got = append(got, m.String())
		patches[m.String()] = string(m.Patch)
	}
	want := []string{
		`remove .metadata.labels.kueue.x-k8s.io/queue-name`,
		`change .metadata.labels.kueue.x-k8s.io/queue-name`,
		`remove .spec.containers[name="head"].env[name="A"].value`,
		`change .spec.containers[name="head"].env[name="A"].value`,
		`remove .spec.containers[name="head"].image`,
		`change .spec.containers[name="head"].image`,
		`remove .spec.nodeSelector`,
		`add an item .spec.nodeSelector`,
		`remove .spec.tolerations`,
		`add an item .spec.tolerations`,
		// Inside what the API replaces whole: each part is a change too.
		`remove .spec.nodeSelector /cloud.google.com~1gke-tpu-topology`,
		`change .spec.nodeSelector /cloud.google.com~1gke-tpu-topology`,
		`remove .spec.tolerations /0`,
		`add an item .spec.tolerations /0`,
		`remove .spec.tolerations /0/effect`,
		`change .spec.tolerations /0/effect`,
		`remove .spec.tolerations /0/key`,
		`change .spec.tolerations /0/key`,
		`remove .spec.tolerations /0/operator`,
		`change .spec.tolerations /0/operator`,
	}
	sort.Strings(want)
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Mutations (-want +got):\n%s", diff)
	}
	var ops []map[string]any
	if err := json.Unmarshal([]byte(patches[`change .spec.containers[name="head"].env[name="A"].value`]), &ops); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(patches["remove .spec.tolerations"]), &ops); err != nil || len(ops) != 1 {
		t.Errorf("removing a list tests nothing first (another writer may have added to it): %v %v", ops, err)
	}
	if err := json.Unmarshal([]byte(patches[`change .spec.containers[name="head"].env[name="A"].value`]), &ops); err != nil {
		t.Fatal(err)
	}
	wantOps := []map[string]any{
		{"op": "test", "path": "/spec/containers/0/env/0/value", "value": "1"},
		{"op": "replace", "path": "/spec/containers/0/env/0/value", "value": "2"},
	}
	if diff := cmp.Diff(wantOps, ops); diff != "" {
		t.Errorf("patch (-want +got):\n%s", diff)
	}
}

// TestBaselineMutationsOnlyWhole: a ConfigMap's files, each one changed and removed, and one added.
func TestBaselineMutationsOnlyWhole(t *testing.T) {
	got := names(wholeMutations(t, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"train.py": "print(1)"}}, "data", "binaryData"))
	want := []string{"remove .data", "add an item .data", "remove .data /train.py", "change .data /train.py"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("BaselineMutations (-want +got):\n%s", diff)
	}
}

// TestShapeKey: the changes inside an atomic list of rules fall into one group per part and kind, whichever item
// holds it; the manager's own fields are groups of their own.
func TestShapeKey(t *testing.T) {
	all := wholeMutations(t, map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "rules": []any{
		map[string]any{"apiGroups": []any{""}, "resources": []any{"pods", "secrets"}, "verbs": []any{"get"}},
		map[string]any{"apiGroups": []any{"batch"}, "resources": []any{"jobs"}, "verbs": []any{"get", "list"}, "resourceNames": []any{"a"}},
	}}, "rules")
	var firsts []Mutation
	seen := map[string]bool{}
	for _, m := range all {
		if k := m.ShapeKey(); k == "" || !seen[k] {
			seen[k] = true
			firsts = append(firsts, m)
		}
	}
	got := names(firsts)
	want := []string{
		"remove .rules", "add an item .rules",
		"remove .rules /0", "add an item .rules /0", "add an item .rules /0/apiGroups", "remove .rules /0/apiGroups",
		"remove .rules /0/apiGroups/0", "change .rules /0/apiGroups/0",
		"remove .rules /0/resources", "add an item .rules /0/resources",
		"remove .rules /0/resources/0", "change .rules /0/resources/0",
		"remove .rules /0/verbs", "add an item .rules /0/verbs",
		"remove .rules /0/verbs/0", "change .rules /0/verbs/0",
		// Only the second rule has resource names: its part is its own shape.
		"remove .rules /1/resourceNames", "add an item .rules /1/resourceNames",
		"remove .rules /1/resourceNames/0", "change .rules /1/resourceNames/0",
	}
	sort.Strings(want)
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the first change of each shape (-want +got):\n%s", diff)
	}
	if len(all) <= len(got) {
		t.Errorf("every one of the %d changes has a shape of its own", len(all))
	}
}

// wholeMutations are the mutations of a RecordOnlyWhole baseline of obj's fields whole.
func wholeMutations(t *testing.T, obj map[string]any, whole ...string) []Mutation {
	t.Helper()
	b, err := RecordOnlyWhole(obj, whole...)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := BaselineMutations(b)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func names(ms []Mutation) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.String())
	}
	return out
}

// TestShapeKeyNamedItems: items with a name are not like items (a comparison may match them by name), unnamed ones
// are.
func TestShapeKeyNamedItems(t *testing.T) {
	ms := wholeMutations(t, map[string]any{"apiVersion": "ray.io/v1", "kind": "RayJob", "groups": []any{
		map[string]any{"groupName": "a", "tolerations": []any{map[string]any{"key": "x"}, map[string]any{"key": "y"}}},
		map[string]any{"groupName": "b", "tolerations": []any{map[string]any{"key": "x"}}},
	}}, "groups")
	key := func(inside, what string) string {
		for _, m := range ms {
			if m.Inside == inside && m.What == what {
				return m.ShapeKey()
			}
		}
		t.Fatalf("no change %s %s", what, inside)
		return ""
	}
	if key("/0/tolerations/0/key", "change") == key("/1/tolerations/0/key", "change") {
		t.Error("the two groups' tolerations share a shape: group b would never be tried")
	}
	if key("/0/tolerations/0/key", "change") != key("/0/tolerations/1/key", "change") {
		t.Error("two unnamed tolerations of one group have shapes of their own")
	}
}
