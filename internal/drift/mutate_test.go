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
	b, err := RecordOnlyWhole(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"train.py": "print(1)"}}, "data", "binaryData")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := BaselineMutations(b)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.String())
	}
	want := []string{"remove .data", "add an item .data", "remove .data /train.py", "change .data /train.py"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("BaselineMutations (-want +got):\n%s", diff)
	}
}
