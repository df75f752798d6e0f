package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkedrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// privateClusterBaseline keeps the cluster the last apply asked GKE for, as GKE makes it: Read compares the live
// cluster with it, every field at any depth, whatever the resource's attributes read back.
const privateClusterBaseline = "cluster_baseline"

// clusterWanted is what GKE makes of the cluster's create request: the request, less the version it resolves (the
// kubernetes_version attribute compares that) and the messages of features turned off, each pool as GKE makes a pool.
func clusterWanted(m *clusterModel) *containerpb.Cluster {
	c := expandCluster(m)
	c.InitialClusterVersion = ""
	if !c.GetAddonsConfig().GetRayOperatorConfig().GetEnabled() {
		c.AddonsConfig = nil
	}
	if !c.GetNodePoolDefaults().GetNodeConfigDefaults().GetGcfsConfig().GetEnabled() {
		c.NodePoolDefaults = nil
	}
	for i, np := range c.NodePools {
		c.NodePools[i] = gkedrift.Made(np)
	}
	return c
}

// driftNames says whether a drift list names a path of obj ("Cluster/NAME", "NodePool/NAME") under one of fields,
// or, with no fields, anything of obj.
func driftNames(d types.List, obj string, fields ...string) bool {
	for _, e := range d.Elements() {
		s, _ := e.(types.String)
		path, ok := strings.CutPrefix(s.ValueString(), obj+" ")
		if !ok {
			continue
		}
		if len(fields) == 0 || gkedrift.Under(strings.TrimPrefix(path, "."), fields...) {
			return true
		}
	}
	return false
}

func readClusterBaseline(ctx context.Context, p tfvalue.PrivateGetter, diags *diag.Diagnostics) *containerpb.Cluster {
	var raw json.RawMessage
	if !tfvalue.ReadPrivate(ctx, p, privateClusterBaseline, &raw, diags) {
		return nil
	}
	c := &containerpb.Cluster{}
	if protojson.Unmarshal(raw, c) != nil {
		return nil
	}
	return c
}

func writeClusterBaseline(ctx context.Context, p tfvalue.PrivateState, m *clusterModel, diags *diag.Diagnostics) {
	b, err := protojson.Marshal(clusterWanted(m))
	if err != nil {
		diags.AddWarning("Drift not recorded", fmt.Sprintf("the cluster was applied, but what it asked of GKE could not be kept: %v", err))
		return
	}
	tfvalue.WritePrivate(ctx, p, privateClusterBaseline, json.RawMessage(b), diags)
}

// privateRecreating names the default pools a repair deleted to make again, until it made them: a pool left deleted
// by a failed create is drift, where a pool deleted by hand is not.
const privateRecreating = "recreating_pools"

// recreatedDefaultPools are the default pools whose planned drift only a new pool repairs: a path outside auto-repair,
// auto-upgrade and upgrade settings, or the pool left deleted by an earlier repair.
func recreatedDefaultPools(planned types.List) []string {
	pools, fields := gkedrift.ByPool(tfvalue.StringList(planned))
	var out []string
	for _, pool := range pools {
		if slices.ContainsFunc(fields[pool], func(p string) bool { return !gkedrift.InPlace(p) }) {
			out = append(out, pool)
		}
	}
	for _, e := range planned.Elements() {
		s, _ := e.(types.String)
		if pool, ok := strings.CutSuffix(strings.TrimPrefix(s.ValueString(), "NodePool/"), " (deleted)"); ok && !slices.Contains(out, pool) {
			out = append(out, pool)
		}
	}
	return out
}

// repairDefaultPools makes each pool of the cluster's request that the plan named in drift what the request asks
// again: auto-repair, auto-upgrade and upgrade settings in place; a pool the plan named changed where only a new pool
// can differ (made again by hand with another machine type, scopes or size), by deleting and creating it again. A
// difference that arose after the plan waits for the next one.
func repairDefaultPools(ctx context.Context, client *gke.Client, ref clusterscope.Ref, m *clusterModel, planned types.List, p tfvalue.PrivateState, diags *diag.Diagnostics) error {
	cl, err := gke.FindCluster(ctx, client, ref.String())
	if err != nil {
		return err
	}
	recreate := recreatedDefaultPools(planned)
	for _, want := range clusterWanted(m).GetNodePools() {
		obj := "NodePool/" + want.GetName()
		if !driftNames(planned, obj) {
			continue
		}
		name := ref.String() + "/nodePools/" + want.GetName()
		have := gkedrift.ClusterPool(cl, want.GetName())
		var calls []func(context.Context) (*containerpb.Operation, error)
		switch {
		case slices.Contains(recreate, want.GetName()):
			tfvalue.WritePrivate(ctx, p, privateRecreating, []string{want.GetName()}, diags)
			if have != nil {
				calls = append(calls, func(ctx context.Context) (*containerpb.Operation, error) {
					return client.API().DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: name})
				})
			}
			calls = append(calls, func(ctx context.Context) (*containerpb.Operation, error) {
				return client.API().CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: ref.String(), NodePool: want})
			})
		case have != nil:
			calls = gkedrift.InPlaceRepairs(client, name, want, have)
		}
		for _, call := range calls {
			// The cluster's name, as every caller: GKE runs one operation on a cluster at a time.
			if err := client.Mutate(ctx, ref.String(), call, nil); err != nil && !gke.IsNotFound(err) {
				return fmt.Errorf("node pool %s: %w", want.GetName(), err)
			}
		}
		if slices.Contains(recreate, want.GetName()) {
			tfvalue.WritePrivate(ctx, p, privateRecreating, nil, diags)
		}
	}
	return nil
}
