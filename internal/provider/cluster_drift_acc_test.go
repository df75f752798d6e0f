package provider

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkedrift"
)

// TestAccDrift_clusterGenerated changes, one at a time, every field of the cluster's create request (as GKE made it,
// from the provider's private state) on the emulator, the cluster's own and its default pool's, as an edit in the
// console or by another API client would, and requires the plan to name the field, the apply to repair it, and the
// plan after to be empty.
func TestAccDrift_clusterGenerated(t *testing.T) {
	t.Parallel() // GKE only, on a cluster of its own
	name := "acc-drift-cl"
	ref := clusterscope.Ref{Project: testProject, Location: testLocation, Name: name}
	tf := newTFRunInProcess(t, "provider \"dwsfallback\" {}\n"+clusterConfig(name, true, `labels = { team = "ml" }`))
	tf.mustRun("apply", "-auto-approve", "-input=false")
	tf.expectEmptyPlan()
	base := stateClusterBaseline(t, tf)
	live := func() *containerpb.Cluster {
		cl, err := gke.FindCluster(context.Background(), gkeAPI(t), ref.String())
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}
	tried, repaired := 0, 0
	var refused []string
	try := func(obj, target, field string, value json.RawMessage, what string) {
		tried++
		if err := emu.Edit(target, field, value); err != nil {
			t.Fatalf("%s: editing %s: %v", obj, field, err)
		}
		named := obj + " ." + field
		out, changed, ok := tf.applyDrift()
		if !ok || !changed || !strings.Contains(out, named) {
			t.Fatalf("%s (%s): the plan should name %q in drift, and the apply repair it (terraform ok %t, changed %t):\n%s", named, what, named, ok, changed, out)
		}
		if out, code := tf.planExit(); code != 0 {
			t.Fatalf("%s (%s): the plan after the repair is not empty (exit %d):\n%s", named, what, code, out)
		}
		if d := gkedrift.Cluster(base, live(), nil); len(d) > 0 {
			t.Fatalf("%s (%s): after the repair the cluster still differs in %v", named, what, d)
		}
		repaired++
	}
	for _, field := range gkedrift.Leaves(gkedrift.WithoutPools(base), gkedrift.ClusterZeroFields...) {
		if field == "name" {
			tried++
			refused = append(refused, "name: a cluster's name is its identity; GKE renames no cluster")
			continue
		}
		value, what := otherValue(t, base, field)
		try("Cluster/"+name, ref.String(), field, value, what)
	}
	for _, pool := range base.GetNodePools() {
		for _, field := range gkedrift.Leaves(pool, gkedrift.ZeroFields...) {
			if field == "name" {
				tried++
				refused = append(refused, "default pool name: a pool's name is its identity")
				continue
			}
			value, what := otherValue(t, pool, field)
			try("NodePool/"+pool.GetName(), ref.String()+"/nodePools/"+pool.GetName(), field, value, what)
		}
	}
	// The default pool deleted by hand, as teams that run Ray heads on pools of their own do: not drift (the docs).
	c := gkeAPI(t)
	if err := c.Mutate(context.Background(), ref.String(), func(ctx context.Context) (*containerpb.Operation, error) {
		return c.API().DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: ref.String() + "/nodePools/default-pool"})
	}, nil); err != nil {
		t.Fatal(err)
	}
	tf.expectEmptyPlan()
	t.Logf("%s: cluster %s: %d fields of its create request tried, %d planned and repaired, %d refused: %v", t.Name(), name, tried, repaired, len(refused), refused)
	tf.mustRun("destroy", "-auto-approve", "-input=false")
}

// stateClusterBaseline is the cluster the provider's last apply asked GKE for, from its private state (under
// "cluster_baseline", a key older states hold too).
func stateClusterBaseline(t *testing.T, tf *tfRun) *containerpb.Cluster {
	t.Helper()
	for _, raw := range privateRecords(t, tf, "cluster_baseline") {
		c := &containerpb.Cluster{}
		if err := protojson.Unmarshal(raw, c); err == nil {
			return c
		}
	}
	t.Fatalf("no baseline of the cluster in the state's private data")
	return nil
}
