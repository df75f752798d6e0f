package poolpair

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// Blue-green upgrades of plan A: gcloud's --enable-blue-green-upgrade, --node-pool-soak-duration and
// --standard-rollout-policy, which set upgradeSettings.strategy BLUE_GREEN and blueGreenSettings. A blue_green object
// in the configuration is the strategy; without one, upgrades are surge upgrades.

var blueGreenTypes = map[string]attr.Type{
	"node_pool_soak_duration": types.StringType,
	"batch_node_count":        types.Int64Type,
	"batch_percentage":        types.Float64Type,
	"batch_soak_duration":     types.StringType,
}

// secondsRE is a duration as GKE's API writes one and gcloud passes it on: whole seconds and "s".
var secondsRE = regexp.MustCompile(`^(0|[1-9][0-9]*)s$`)

func blueGreenAttribute() schema.SingleNestedAttribute {
	seconds := []validator.String{stringvalidator.RegexMatches(secondsRE, `must be whole seconds followed by "s", as GKE's API writes it, such as "3600s"`)}
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Blue-green upgrades of the on-demand pool instead of surge upgrades (gcloud's `--enable-blue-green-upgrade`): GKE makes new (green) nodes, " +
			"drains the old (blue) ones in batches, and keeps them for a soak time to roll back to. `blue_green = {}` takes GKE's own batch and soak settings. " +
			"Left out, upgrades are surge upgrades (`max_surge`, `max_unavailable`). Not for multi-host v5e, v5p or v6e slices: GKE places them compactly, and compact " +
			"placement does not support blue-green upgrades (Google's Cluster Toolkit, gke-node-pool module); a TPU7x slice, placed by a workload policy, is left to GKE. " +
			"`batch_percentage` is kept by GKE as a 32-bit float: at most 7 significant digits. Set, changed or taken out in place.",
		Attributes: map[string]schema.Attribute{
			"node_pool_soak_duration": schema.StringAttribute{
				Optional:            true,
				Validators:          seconds,
				MarkdownDescription: "How long GKE keeps the blue nodes after the last batch drained, before it deletes them (gcloud's `--node-pool-soak-duration`), such as `3600s`.",
			},
			"batch_node_count": schema.Int64Attribute{
				Optional: true,
				Validators: []validator.Int64{
					int64validator.AtLeast(1),
					int64validator.ConflictsWith(path.MatchRelative().AtParent().AtName("batch_percentage")),
				},
				MarkdownDescription: "How many blue nodes GKE drains in one batch (`--standard-rollout-policy=batch-node-count=N`). At most one of this and `batch_percentage`.",
			},
			"batch_percentage": schema.Float64Attribute{
				Optional:            true,
				Validators:          []validator.Float64{float64validator.AtMost(1)},
				MarkdownDescription: "The share of blue nodes GKE drains in one batch, above 0 and at most 1 (`--standard-rollout-policy=batch-percent=0.25`).",
			},
			"batch_soak_duration": schema.StringAttribute{
				Optional:            true,
				Validators:          seconds,
				MarkdownDescription: "How long GKE waits after each batch before it drains the next (`--standard-rollout-policy=batch-soak-duration=60s`).",
			},
		},
	}
}

type blueGreenModel struct {
	NodePoolSoakDuration, BatchSoakDuration types.String
	BatchNodeCount                          types.Int64
	BatchPercentage                         types.Float64
}

// decodeBlueGreen reads a blue_green object; false when it is null or unknown.
func decodeBlueGreen(o types.Object) (blueGreenModel, bool) {
	if o.IsNull() || o.IsUnknown() {
		return blueGreenModel{}, false
	}
	a := o.Attributes()
	m := blueGreenModel{NodePoolSoakDuration: types.StringNull(), BatchSoakDuration: types.StringNull(),
		BatchNodeCount: types.Int64Null(), BatchPercentage: types.Float64Null()}
	if v, ok := a["node_pool_soak_duration"].(types.String); ok {
		m.NodePoolSoakDuration = v
	}
	if v, ok := a["batch_soak_duration"].(types.String); ok {
		m.BatchSoakDuration = v
	}
	if v, ok := a["batch_node_count"].(types.Int64); ok {
		m.BatchNodeCount = v
	}
	if v, ok := a["batch_percentage"].(types.Float64); ok {
		m.BatchPercentage = v
	}
	return m, true
}

// expandBlueGreen sets the strategy and settings as gcloud's flags do: blueGreenSettings only with a setting in it,
// standardRolloutPolicy only with a batch setting.
func expandBlueGreen(o types.Object, u *containerpb.NodePool_UpgradeSettings) {
	bg, ok := decodeBlueGreen(o)
	if !ok {
		return
	}
	u.Strategy = containerpb.NodePoolUpdateStrategy_BLUE_GREEN.Enum()
	s := &containerpb.BlueGreenSettings{NodePoolSoakDuration: durationOf(bg.NodePoolSoakDuration)}
	policy := &containerpb.BlueGreenSettings_StandardRolloutPolicy{BatchSoakDuration: durationOf(bg.BatchSoakDuration)}
	switch {
	case tfvalue.Known(bg.BatchNodeCount):
		policy.UpdateBatchSize = &containerpb.BlueGreenSettings_StandardRolloutPolicy_BatchNodeCount{
			BatchNodeCount: int32(bg.BatchNodeCount.ValueInt64())} //nolint:gosec // a node count
	case tfvalue.Known(bg.BatchPercentage):
		policy.UpdateBatchSize = &containerpb.BlueGreenSettings_StandardRolloutPolicy_BatchPercentage{
			BatchPercentage: float32(bg.BatchPercentage.ValueFloat64())}
	}
	if policy.UpdateBatchSize != nil || policy.BatchSoakDuration != nil {
		s.RolloutPolicy = &containerpb.BlueGreenSettings_StandardRolloutPolicy_{StandardRolloutPolicy: policy}
	}
	if s.NodePoolSoakDuration != nil || s.RolloutPolicy != nil {
		u.BlueGreenSettings = s
	}
}

// flattenBlueGreen is the blue_green object of a live pool: null unless its strategy is BLUE_GREEN (settings GKE
// keeps from an earlier blue-green strategy do not count once the pool is back on surge).
func flattenBlueGreen(np *containerpb.NodePool) types.Object {
	u := np.GetUpgradeSettings()
	if u.GetStrategy() != containerpb.NodePoolUpdateStrategy_BLUE_GREEN {
		return types.ObjectNull(blueGreenTypes)
	}
	s := u.GetBlueGreenSettings()
	policy := s.GetStandardRolloutPolicy()
	vals := map[string]attr.Value{
		"node_pool_soak_duration": secondsOf(s.GetNodePoolSoakDuration()),
		"batch_soak_duration":     secondsOf(policy.GetBatchSoakDuration()),
		"batch_node_count":        types.Int64Null(),
		"batch_percentage":        types.Float64Null(),
	}
	switch b := policy.GetUpdateBatchSize().(type) {
	case *containerpb.BlueGreenSettings_StandardRolloutPolicy_BatchNodeCount:
		vals["batch_node_count"] = types.Int64Value(int64(b.BatchNodeCount))
	case *containerpb.BlueGreenSettings_StandardRolloutPolicy_BatchPercentage:
		vals["batch_percentage"] = types.Float64Value(float32Decimal(b.BatchPercentage))
	}
	return types.ObjectValueMust(blueGreenTypes, vals)
}

// float32Decimal reads a float32 through its shortest decimal, so that 0.3 stays 0.3.
func float32Decimal(f float32) float64 {
	d, _ := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	return d
}

// asGKEKeepsShare is a batch share as it reads back after GKE kept it (a float32).
func asGKEKeepsShare(share float64) float64 { return float32Decimal(float32(share)) }

func durationOf(v types.String) *durationpb.Duration {
	if !tfvalue.Known(v) {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSuffix(v.ValueString(), "s"), 10, 64)
	if err != nil {
		return nil // the attribute's validator refused it
	}
	return durationpb.New(time.Duration(n) * time.Second)
}

func secondsOf(d *durationpb.Duration) types.String {
	if d == nil {
		return types.StringNull()
	}
	return types.StringValue(formatRunDuration(d.AsDuration()))
}

// validateBlueGreenSlice refuses blue-green upgrades of a multi-host TPU slice: GKE places one compactly, and compact
// placement does not support them (Google's Cluster Toolkit, modules/compute/gke-node-pool: "Compact placement is not
// supported with blue-green upgrades").
func validateBlueGreenSlice(onDemand types.Object, topology string, nodes int, diags *diag.Diagnostics) {
	od, ok := onDemandRole.decodePool(onDemand)
	if !ok || od.BlueGreen.IsNull() || od.BlueGreen.IsUnknown() {
		return
	}
	diags.AddAttributeError(path.Root("on_demand").AtName("blue_green"), "Blue-green upgrades of a multi-host TPU slice",
		fmt.Sprintf("tpu_topology %s makes a slice of %d nodes, which GKE places compactly, and compact placement does not support blue-green "+
			"upgrades. Leave on_demand.blue_green out: the pool upgrades by surge (max_surge, max_unavailable).", topology, nodes))
}
