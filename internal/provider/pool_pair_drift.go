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

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkedrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// privatePoolBaselines keeps, per pool name, the pool the provider's last apply asked GKE for (as GKE makes it): Read
// compares each live pool with it, field by field, whatever the pair's shared attributes say now.
const privatePoolBaselines = "pool_baselines"

// gkeMakes is the pool GKE makes of a create request np: the request, but for what GKE decides itself. A flex-start
// or queued pool's upgrades are GKE's (GKE docs, concepts/node-pool-upgrade-strategies: "For nodes that use
// Flex-start VMs, GKE uses short-lived upgrades"; API reference, NodePoolUpdateStrategy: SHORT_LIVED for queued
// provisioning and flex-start pools), so its upgrade settings are not compared at all; any other pool's strategy is
// SURGE when the request leaves it out (NodePoolUpdateStrategy: "GKE internally defaults the update strategy to
// SURGE for unspecified strategies").
func gkeMakes(np *containerpb.NodePool) *containerpb.NodePool {
	np, _ = proto.Clone(np).(*containerpb.NodePool)
	switch {
	case np.GetConfig().GetFlexStart() || np.GetQueuedProvisioning().GetEnabled():
		np.UpgradeSettings = nil
	case np.GetUpgradeSettings() != nil && np.UpgradeSettings.Strategy == nil:
		surge := containerpb.NodePoolUpdateStrategy_SURGE
		np.UpgradeSettings.Strategy = &surge
	}
	return np
}

// zeroFields are the fields of a pool's request that mean something at zero: auto-repair or auto-upgrade off (the
// DWS docs' GPU plan B turns auto-repair off), and a minimum of 0 nodes.
var zeroFields = []string{"management.autoRepair", "management.autoUpgrade", "autoscaling.minNodeCount", "autoscaling.totalMinNodeCount"}

// wantedPool is what the pair's apply makes of role's pool, as GKE makes it.
func wantedPool(role poolRole, m pairModel) (*containerpb.NodePool, bool) {
	p, ok := role.decodePool(role.get(m.pair()))
	if !ok || !known(m.pair().MachineType) {
		return nil, false
	}
	return gkeMakes(expandNodePool(role, p, m)), true
}

// poolDrift names each field of a live pool that differs from what the last apply made of it, as
// "NodePool/NAME .path" in GKE's field names, so that the plan says which of the two pools differs.
func poolDrift(baselines map[string]*containerpb.NodePool, live ...*containerpb.NodePool) []string {
	var out []string
	for _, np := range live {
		base := baselines[np.GetName()]
		if np == nil || base == nil {
			continue
		}
		for _, p := range gkedrift.Diff(base, np, zeroFields...) {
			out = append(out, "NodePool/"+np.GetName()+" ."+p)
		}
	}
	return out
}

// inPlaceFields are the fields of a pool GKE changes without recreating it, each by the call Update repairs it with.
var inPlaceFields = []string{"autoscaling", "management", "upgradeSettings", "config.labels", "config.taints"}

func inPlace(path string) bool { return underAny(path, inPlaceFields...) }

// underAny says whether path is one of fields or inside one.
func underAny(path string, fields ...string) bool {
	return slices.ContainsFunc(fields, func(f string) bool { return path == f || strings.HasPrefix(path, f+".") })
}

// recreated names the fields of have that differ from want, that only a new pool can set, and that the plan named in
// drift (so the plan warned that the pool is created again): a difference that arose after the plan waits for the
// next one.
func recreated(want, have *containerpb.NodePool, planned map[string][]string) []string {
	var out []string
	for _, p := range gkedrift.Diff(want, have, zeroFields...) {
		if !inPlace(p) && slices.Contains(planned[have.GetName()], p) {
			out = append(out, p)
		}
	}
	return out
}

// driftByPool reads a drift list back into each pool's fields.
func driftByPool(drift types.List) (pools []string, fields map[string][]string) {
	fields = map[string][]string{}
	for _, e := range drift.Elements() {
		s, _ := e.(types.String)
		obj, field, ok := strings.Cut(s.ValueString(), " .")
		pool, isPool := strings.CutPrefix(obj, "NodePool/")
		if !ok || !isPool {
			continue
		}
		if fields[pool] == nil {
			pools = append(pools, pool)
		}
		fields[pool] = append(fields[pool], field)
	}
	return pools, fields
}

func readPoolBaselines(ctx context.Context, p tfvalue.PrivateGetter, diags *diag.Diagnostics) map[string]*containerpb.NodePool {
	var raw map[string]json.RawMessage
	tfvalue.ReadPrivate(ctx, p, privatePoolBaselines, &raw, diags)
	out := map[string]*containerpb.NodePool{}
	for name, b := range raw {
		np := &containerpb.NodePool{}
		if protojson.Unmarshal(b, np) == nil {
			out[name] = np
		}
	}
	return out
}

func writePoolBaselines(ctx context.Context, p tfvalue.PrivateState, baselines map[string]*containerpb.NodePool, diags *diag.Diagnostics) {
	raw := map[string]json.RawMessage{}
	for name, np := range baselines {
		if b, err := protojson.Marshal(np); err == nil {
			raw[name] = b
		}
	}
	tfvalue.WritePrivate(ctx, p, privatePoolBaselines, raw, diags)
}

// repairInPlace sets again, on each pool of the pair, the fields GKE changes in place that differ from what the apply
// makes of m: autoscaling, management, upgrade settings, node labels and taints, each with the call that sets it.
func repairInPlace(ctx context.Context, client *gke.Client, ref clusterscope.Ref, names map[poolRole]string, m pairModel) error {
	pools, err := gke.ListPools(ctx, client, ref.String())
	if err != nil {
		return err
	}
	for _, role := range poolRoles {
		want, ok := wantedPool(role, m)
		have := pools[names[role]]
		if !ok || have == nil {
			continue
		}
		calls := inPlaceRepairs(client, ref.String()+"/nodePools/"+have.GetName(), want, have)
		for _, call := range calls {
			if err := client.Mutate(ctx, ref.String(), call, nil); err != nil {
				return fmt.Errorf("node pool %s: %w", have.GetName(), err)
			}
		}
	}
	return nil
}

// inPlaceRepairs are the calls that set again, on the pool named name, the fields GKE changes in place where have
// differs from want: autoscaling, management, upgrade settings, node labels and taints.
func inPlaceRepairs(client *gke.Client, name string, want, have *containerpb.NodePool) []func(context.Context) (*containerpb.Operation, error) {
	diff := gkedrift.Diff(want, have, zeroFields...)
	differs := func(field string) bool {
		return slices.ContainsFunc(diff, func(p string) bool { return underAny(p, field) })
	}
	var calls []func(context.Context) (*containerpb.Operation, error)
	if differs("autoscaling") {
		calls = append(calls, func(ctx context.Context) (*containerpb.Operation, error) {
			return client.API().SetNodePoolAutoscaling(ctx, &containerpb.SetNodePoolAutoscalingRequest{Name: name, Autoscaling: want.GetAutoscaling()})
		})
	}
	if differs("management") {
		calls = append(calls, func(ctx context.Context) (*containerpb.Operation, error) {
			return client.API().SetNodePoolManagement(ctx, &containerpb.SetNodePoolManagementRequest{Name: name, Management: want.GetManagement()})
		})
	}
	if differs("upgradeSettings") || differs("config.labels") || differs("config.taints") {
		u := &containerpb.UpdateNodePoolRequest{Name: name}
		if differs("upgradeSettings") {
			u.UpgradeSettings = want.GetUpgradeSettings()
		}
		if differs("config.labels") {
			u.Labels = &containerpb.NodeLabels{Labels: want.GetConfig().GetLabels()}
		}
		if differs("config.taints") {
			u.Taints = &containerpb.NodeTaints{Taints: want.GetConfig().GetTaints()}
		}
		calls = append(calls, func(ctx context.Context) (*containerpb.Operation, error) { return client.API().UpdateNodePool(ctx, u) })
	}
	return calls
}
