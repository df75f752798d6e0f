package provider

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestStillToRemove: old credentials the plan uses again (a move back, by name or by id) are not removed; others are,
// and an unknown worker_cluster keeps them all.
func TestStillToRemove(t *testing.T) {
	r := &multiKueueWorkerResource{clients: &providerData{project: "p", location: "l"}}
	w1 := oldCredentials{WorkerCluster: "projects/p/locations/l/clusters/w1", ServiceAccount: "multikueue-sa", User: "u"}
	plan := func(cluster, sa string) *multiKueueWorkerModel {
		m := &multiKueueWorkerModel{WorkerCluster: types.StringValue(cluster), ServiceAccount: types.StringValue(sa), KubeconfigWOVersion: types.Int64Null()}
		if cluster == "" {
			m.WorkerCluster = types.StringUnknown()
		}
		return m
	}
	for _, tc := range []struct {
		name string
		plan *multiKueueWorkerModel
		want []oldCredentials
	}{
		{"moved back, by name", plan("w1", "multikueue-sa"), nil},
		{"moved back, by id", plan("projects/p/locations/l/clusters/w1", "multikueue-sa"), nil},
		{"another worker", plan("w2", "multikueue-sa"), []oldCredentials{w1}},
		{"same worker in another project", plan("projects/q/locations/l/clusters/w1", "multikueue-sa"), []oldCredentials{w1}},
		{"another ServiceAccount", plan("w1", "other-sa"), []oldCredentials{w1}},
		{"worker not known yet", plan("", "multikueue-sa"), []oldCredentials{w1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, r.stillToRemove([]oldCredentials{w1}, tc.plan)); diff != "" {
				t.Errorf("stillToRemove (-want +got):\n%s", diff)
			}
		})
	}
	brought := plan("w1", "multikueue-sa")
	brought.KubeconfigWOVersion = types.Int64Value(1)
	if got := r.stillToRemove([]oldCredentials{w1}, brought); len(got) != 1 {
		t.Errorf("a brought kubeconfig uses no ServiceAccount, so the old one goes: got %v", got)
	}
}
