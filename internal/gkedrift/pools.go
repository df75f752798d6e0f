package gkedrift

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/protobuf/proto"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// Made is the pool GKE makes of a create request np: the request, but for what GKE decides itself. A flex-start
// or queued pool's upgrades are GKE's (GKE docs, concepts/node-pool-upgrade-strategies: "For nodes that use
// Flex-start VMs, GKE uses short-lived upgrades"; API reference, NodePoolUpdateStrategy: SHORT_LIVED for queued
// provisioning and flex-start pools), so its upgrade settings are not compared at all; any other pool's strategy is
// SURGE when the request leaves it out (NodePoolUpdateStrategy: "GKE internally defaults the update strategy to
// SURGE for unspecified strategies").
func Made(np *containerpb.NodePool) *containerpb.NodePool {
	np, _ = proto.Clone(np).(*containerpb.NodePool)
	switch {
	case np.GetConfig().GetFlexStart() || np.GetQueuedProvisioning().GetEnabled():
		np.UpgradeSettings = nil
	case np.GetUpgradeSettings() != nil && np.UpgradeSettings.Strategy == nil:
		surge := containerpb.NodePoolUpdateStrategy_SURGE
		np.UpgradeSettings.Strategy = &surge
	}
	// A pool's zones are a set: GKE keeps them in the order asked for.
	slices.Sort(np.Locations)
	// The boot disk a request leaves out is GKE's default for the machine type, where the catalog has it on record,
	// so that one changed by hand shows; otherwise it is GKE's to choose and not compared.
	if cfg := np.GetConfig(); cfg != nil {
		cfg.DiskType = cmp.Or(cfg.DiskType, catalog.DefaultDiskType(cfg.MachineType))
		cfg.DiskSizeGb = cmp.Or(cfg.DiskSizeGb, catalog.DefaultDiskSizeGB)
		withGvnic(cfg)
	}
	return np
}

// withGvnic gives a config without a gVNIC setting one that says off, which is what none means: Diff then compares
// gvnic.enabled (a ZeroFields entry) whichever of the two a request or GKE wrote.
func withGvnic(cfg *containerpb.NodeConfig) {
	if cfg.Gvnic == nil {
		cfg.Gvnic = &containerpb.VirtualNIC{}
	}
}

// Live is a live pool as Diff compares it with what an apply made: less the resource labels GKE adds itself
// (WithoutGKELabels), with gVNIC off where it has no setting (withGvnic), and its zones sorted.
func Live(np *containerpb.NodePool) *containerpb.NodePool {
	np, _ = proto.Clone(np).(*containerpb.NodePool)
	slices.Sort(np.Locations)
	if np.GetConfig() == nil {
		return np
	}
	np.Config.ResourceLabels = WithoutGKELabels(np)
	withGvnic(np.Config)
	return np
}

// PoolDiff names each field of have, as Live reads it, that differs from want.
func PoolDiff(want, have *containerpb.NodePool) []string {
	return Diff(blueGreenShaped(want), blueGreenShaped(Live(have)), ZeroFields...)
}

// blueGreenShaped gives a blue-green pool's settings the messages Diff walks, so that a setting one side leaves out
// is compared through ZeroFields: GKE replaces upgradeSettings whole, so a setting taken out of the configuration is
// drift an update repairs. A pool on another strategy has no blue-green settings that count: GKE keeps the old ones
// beside the surge strategy (gcloud's --enable-surge-upgrade leaves them), unused.
func blueGreenShaped(np *containerpb.NodePool) *containerpb.NodePool {
	u := np.GetUpgradeSettings()
	blueGreen := u.GetStrategy() == containerpb.NodePoolUpdateStrategy_BLUE_GREEN
	if u == nil || (!blueGreen && u.BlueGreenSettings == nil) || (blueGreen && u.GetBlueGreenSettings().GetRolloutPolicy() != nil) {
		return np
	}
	np, _ = proto.Clone(np).(*containerpb.NodePool)
	u = np.UpgradeSettings
	if !blueGreen {
		u.BlueGreenSettings = nil
		return np
	}
	if u.BlueGreenSettings == nil {
		u.BlueGreenSettings = &containerpb.BlueGreenSettings{}
	}
	u.BlueGreenSettings.RolloutPolicy = &containerpb.BlueGreenSettings_StandardRolloutPolicy_{
		StandardRolloutPolicy: &containerpb.BlueGreenSettings_StandardRolloutPolicy{}}
	return np
}

// gkeLabels are the resource labels GKE adds to node pools itself (GKE docs, creating-managing-labels, "Automatically
// applied labels"). GKE reconciles them ("Any changes made to reserved labels are automatically reconciled"), so
// their values are GKE's whatever they are: a request never carries them (the provider refuses goog-gke- keys), and
// a value no record shows (a reservation-bound pool's provisioning model) must not become drift no apply can repair.
var gkeLabels = []string{wellknown.ProvisioningModelLabel, wellknown.AcceleratorTypeLabel, wellknown.TPUPoolTypeLabel}

// WithoutGKELabels are a pool's resource labels less GKE's own: what the user asked for.
func WithoutGKELabels(np *containerpb.NodePool) map[string]string {
	labels := maps.Clone(np.GetConfig().GetResourceLabels())
	for _, k := range gkeLabels {
		delete(labels, k)
	}
	return labels
}

// ZeroFields are the fields of a pool's request that mean something at zero: auto-repair or auto-upgrade off (the
// DWS docs' GPU plan B turns auto-repair off), a minimum of 0 nodes, and no labels, tags or taints (so that one added
// by hand to a pool made without any is drift), gVNIC off, and surge upgrades without surge or without unavailable
// nodes, and a blue-green setting left out (blueGreenShaped).
var ZeroFields = []string{"management.autoRepair", "management.autoUpgrade", "autoscaling.minNodeCount", "autoscaling.totalMinNodeCount",
	"config.labels", "config.resourceLabels", "config.tags", "config.taints", "config.gvnic.enabled",
	"upgradeSettings.maxSurge", "upgradeSettings.maxUnavailable",
	"upgradeSettings.blueGreenSettings.nodePoolSoakDuration", "upgradeSettings.blueGreenSettings.standardRolloutPolicy.batchSoakDuration",
	"upgradeSettings.blueGreenSettings.standardRolloutPolicy.batchNodeCount", "upgradeSettings.blueGreenSettings.standardRolloutPolicy.batchPercentage"}

// Pools names each field of a live pool that differs from what the last apply made of it, as
// "NodePool/NAME .path" in GKE's field names, so that the plan says which of the two pools differs.
func Pools(baselines map[string]*containerpb.NodePool, live ...*containerpb.NodePool) []string {
	var out []string
	for _, np := range live {
		base := baselines[np.GetName()]
		if np == nil || base == nil {
			continue
		}
		for _, p := range PoolDiff(base, np) {
			out = append(out, "NodePool/"+np.GetName()+" ."+p)
		}
	}
	return out
}

// inPlaceFields are the fields of a pool GKE changes without recreating it, each by the call Update repairs it with.
var inPlaceFields = []string{"locations", "autoscaling", "management", "upgradeSettings", "config.labels", "config.taints", "config.maxRunDuration",
	"config.resourceLabels", "config.tags", "config.diskType", "config.diskSizeGb", "config.gvnic"}

// InPlace says whether GKE changes the field at path in place, without a new pool.
func InPlace(path string) bool { return Under(path, inPlaceFields...) }

// Under says whether path is one of fields or inside one.
func Under(path string, fields ...string) bool {
	return slices.ContainsFunc(fields, func(f string) bool { return path == f || strings.HasPrefix(path, f+".") })
}

// Recreated names the fields of have that differ from want, that only a new pool can set, and that the plan named in
// drift (so the plan warned that the pool is created again): a difference that arose after the plan waits for the
// next one.
func Recreated(want, have *containerpb.NodePool, planned map[string][]string) []string {
	var out []string
	for _, p := range PoolDiff(want, have) {
		if !InPlace(p) && slices.Contains(planned[have.GetName()], p) {
			out = append(out, p)
		}
	}
	return out
}

// ByPool reads drift ("NodePool/NAME .path", as Pools names it) back into each pool's fields.
func ByPool(drift []string) (pools []string, fields map[string][]string) {
	fields = map[string][]string{}
	for _, s := range drift {
		obj, field, ok := strings.Cut(s, " .")
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

// InPlaceRepairs are the calls that set again, on the pool named name, the fields GKE changes in place where have
// differs from want: its zones, autoscaling, management, upgrade settings, node labels and taints, resource labels, network
// tags, the run limit, the boot disk and gVNIC.
func InPlaceRepairs(client *gke.Client, name string, want, have *containerpb.NodePool) []func(context.Context) (*containerpb.Operation, error) {
	diff := PoolDiff(want, have)
	differs := func(field string) bool {
		return slices.ContainsFunc(diff, func(p string) bool { return Under(p, field) })
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
	if slices.ContainsFunc([]string{"upgradeSettings", "config.labels", "config.taints", "config.maxRunDuration", "config.resourceLabels", "config.tags"}, differs) {
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
		if differs("config.maxRunDuration") {
			u.MaxRunDuration = want.GetConfig().GetMaxRunDuration()
		}
		if differs("config.resourceLabels") {
			u.ResourceLabels = &containerpb.ResourceLabels{Labels: want.GetConfig().GetResourceLabels()}
		}
		if differs("config.tags") {
			u.Tags = &containerpb.NetworkTags{Tags: want.GetConfig().GetTags()}
		}
		calls = append(calls, func(ctx context.Context) (*containerpb.Operation, error) { return client.API().UpdateNodePool(ctx, u) })
	}
	// The boot disk and gVNIC each go in a call of their own, as gcloud sends them: each migrates the nodes.
	if differs("config.diskType") || differs("config.diskSizeGb") {
		u := &containerpb.UpdateNodePoolRequest{Name: name, DiskType: want.GetConfig().GetDiskType(), DiskSizeGb: int64(want.GetConfig().GetDiskSizeGb())}
		calls = append(calls, func(ctx context.Context) (*containerpb.Operation, error) { return client.API().UpdateNodePool(ctx, u) })
	}
	// New zones add nodes there and take them away elsewhere: a call of its own, as gcloud's --node-locations.
	if differs("locations") {
		u := &containerpb.UpdateNodePoolRequest{Name: name, Locations: want.GetLocations()}
		calls = append(calls, func(ctx context.Context) (*containerpb.Operation, error) { return client.API().UpdateNodePool(ctx, u) })
	}
	if differs("config.gvnic") {
		u := &containerpb.UpdateNodePoolRequest{Name: name, Gvnic: &containerpb.VirtualNIC{Enabled: want.GetConfig().GetGvnic().GetEnabled()}}
		calls = append(calls, func(ctx context.Context) (*containerpb.Operation, error) { return client.API().UpdateNodePool(ctx, u) })
	}
	return calls
}
