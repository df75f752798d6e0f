package multikueue

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

// TestStillToRemove: old credentials the plan uses again (a move back, by name or by id) are not removed; others are,
// and an unknown worker_cluster keeps them all.
func TestStillToRemove(t *testing.T) {
	r := &multiKueueWorkerResource{clients: defaults{"p", "l"}}
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

// defaults are clients that know only the provider's default project and location.
type defaults struct{ project, location string }

func (d defaults) Defaults() (string, string) { return d.project, d.location }
func (defaults) GKE(context.Context) (*gke.Client, error) {
	return nil, errors.New("no GKE in this test")
}
func (defaults) Kube(context.Context, clusterscope.Ref) (*kube.Clients, error) {
	return nil, errors.New("no Kubernetes in this test")
}
func (defaults) HasKubernetesBlock() bool { return false }
