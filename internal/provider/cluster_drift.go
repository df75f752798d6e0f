package provider

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
	"google.golang.org/protobuf/proto"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkedrift"
)

// privateClusterBaseline keeps the cluster the last apply asked GKE for, as GKE makes it: Read compares the live
// cluster with it, every field at any depth, whatever the resource's attributes read back.
const privateClusterBaseline = "cluster_baseline"

// clusterZeroFields are the fields of the cluster's request that mean something at zero (an add-on or image
// streaming off), which proto3 cannot tell from unset.
var clusterZeroFields = []string{"addonsConfig.rayOperatorConfig.enabled", "nodePoolDefaults.nodeConfigDefaults.gcfsConfig.enabled"}

// clusterWanted is what GKE makes of the cluster's create request: the request, less the version it resolves (the
// kubernetes_version attribute compares that), each pool as GKE makes a pool.
func clusterWanted(m *clusterModel) *containerpb.Cluster {
	c := expandCluster(m)
	c.InitialClusterVersion = ""
	for i, np := range c.NodePools {
		c.NodePools[i] = gkeMakes(np)
	}
	return c
}

// clusterDrift names each field of the live cluster that differs from what the last apply made of it: the cluster's
// as "Cluster/NAME .path", its pools' (the default pool) as "NodePool/NAME .path".
// Pools made by other resources are theirs to compare.
func clusterDrift(base, live *containerpb.Cluster) []string {
	b, l := withoutPools(base), withoutPools(live)
	var out []string
	for _, p := range gkedrift.Diff(b, l, clusterZeroFields...) {
		out = append(out, "Cluster/"+live.GetName()+" ."+p)
	}
	for _, bp := range base.GetNodePools() {
		// A default pool deleted by hand is not drift: teams that run Ray heads on pools of their own delete it,
		// and the resource's docs say so.
		if lp := clusterPool(live, bp.GetName()); lp != nil {
			out = append(out, poolDrift(map[string]*containerpb.NodePool{bp.GetName(): bp}, lp)...)
		}
	}
	return out
}

func withoutPools(c *containerpb.Cluster) *containerpb.Cluster {
	c, _ = proto.Clone(c).(*containerpb.Cluster)
	c.NodePools = nil
	return c
}

func clusterPool(c *containerpb.Cluster, name string) *containerpb.NodePool {
	for _, np := range c.GetNodePools() {
		if np.GetName() == name {
			return np
		}
	}
	return nil
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
		if len(fields) == 0 || underAny(strings.TrimPrefix(path, "."), fields...) {
			return true
		}
	}
	return false
}

func readClusterBaseline(ctx context.Context, p privateGetter, diags *diag.Diagnostics) *containerpb.Cluster {
	var raw json.RawMessage
	if !readPrivate(ctx, p, privateClusterBaseline, &raw, diags) {
		return nil
	}
	c := &containerpb.Cluster{}
	if protojson.Unmarshal(raw, c) != nil {
		return nil
	}
	return c
}

func writeClusterBaseline(ctx context.Context, p privateState, m *clusterModel, diags *diag.Diagnostics) {
	b, err := protojson.Marshal(clusterWanted(m))
	if err != nil {
		diags.AddWarning("Drift not recorded", fmt.Sprintf("the cluster was applied, but what it asked of GKE could not be kept: %v", err))
		return
	}
	writePrivate(ctx, p, privateClusterBaseline, json.RawMessage(b), diags)
}

// repairDefaultPools makes each pool of the cluster's request that the plan named in drift what the request asks
// again: auto-repair, auto-upgrade and upgrade settings in place; a pool changed where only a new pool can differ
// (made again by hand with another machine type, scopes or size), by deleting and creating it again.
func repairDefaultPools(ctx context.Context, client *gke.Client, ref clusterRef, m *clusterModel, planned types.List) error {
	cl, err := findCluster(ctx, client, ref)
	if err != nil {
		return err
	}
	for _, want := range clusterWanted(m).GetNodePools() {
		obj := "NodePool/" + want.GetName()
		if !driftNames(planned, obj) {
			continue
		}
		name := ref.String() + "/nodePools/" + want.GetName()
		have := clusterPool(cl, want.GetName())
		if have == nil {
			continue
		}
		diff := gkedrift.Diff(want, have, zeroFields...)
		var calls []func(context.Context) (*containerpb.Operation, error)
		if slices.ContainsFunc(diff, func(p string) bool { return !underAny(p, "management", "upgradeSettings") }) {
			calls = append(calls, func(ctx context.Context) (*containerpb.Operation, error) {
				return client.API().DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: name})
			}, func(ctx context.Context) (*containerpb.Operation, error) {
				return client.API().CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: ref.String(), NodePool: want})
			})
		} else {
			if slices.ContainsFunc(diff, func(p string) bool { return underAny(p, "management") }) {
				calls = append(calls, func(ctx context.Context) (*containerpb.Operation, error) {
					return client.API().SetNodePoolManagement(ctx, &containerpb.SetNodePoolManagementRequest{Name: name, Management: want.GetManagement()})
				})
			}
			if slices.ContainsFunc(diff, func(p string) bool { return underAny(p, "upgradeSettings") }) {
				calls = append(calls, func(ctx context.Context) (*containerpb.Operation, error) {
					return client.API().UpdateNodePool(ctx, &containerpb.UpdateNodePoolRequest{Name: name, UpgradeSettings: want.GetUpgradeSettings()})
				})
			}
		}
		for _, call := range calls {
			if err := client.Mutate(ctx, name, call, nil); err != nil && !gke.IsNotFound(err) {
				return fmt.Errorf("node pool %s: %w", want.GetName(), err)
			}
		}
	}
	return nil
}
