package provider

import (
	"context"
	"fmt"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/validators"
)

type tpuPoolPairResource = poolPairResource[tpuPoolPairModel, *tpuPoolPairModel]

var (
	_ resource.ResourceWithConfigure      = (*tpuPoolPairResource)(nil)
	_ resource.ResourceWithImportState    = (*tpuPoolPairResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*tpuPoolPairResource)(nil)
	_ resource.ResourceWithValidateConfig = (*tpuPoolPairResource)(nil)
)

func NewTPUPoolPairResource() resource.Resource {
	return &tpuPoolPairResource{kind: pairKind{
		name: "tpu_pool_pair", noun: "TPU", attributes: tpuPairAttributes,
		description: "Two TPU node pools of one machine type and slice shape on a GKE cluster: plan A on demand " +
			"(no reservations) and plan B provisioned by the Dynamic Workload Scheduler (queued provisioning + flex-start), " +
			"exactly as `gcloud container node-pools create` makes them in the DWS + Kueue fallback tutorial.",
	}}
}

type tpuPoolPairModel struct {
	poolPairModel
	TPUTopology     types.String `tfsdk:"tpu_topology"`
	PlacementPolicy types.String `tfsdk:"placement_policy"`
	TPUAccelerator  types.String `tfsdk:"tpu_accelerator"`
	ChipsPerNode    types.Int64  `tfsdk:"chips_per_node"`
	NodesPerSlice   types.Int64  `tfsdk:"nodes_per_slice"`
	ChipsPerSlice   types.Int64  `tfsdk:"chips_per_slice"`
	MaxChips        types.Int64  `tfsdk:"max_chips"`
}

func (m *tpuPoolPairModel) pair() *poolPairModel { return &m.poolPairModel }

func tpuPairAttributes() map[string]schema.Attribute {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	return map[string]schema.Attribute{
		"machine_type": schema.StringAttribute{
			Required: true,
			MarkdownDescription: "TPU machine type of both pools, e.g. `ct6e-standard-4t` (TPU v6e, 4 chips per node) or `tpu7x-standard-4t` (TPU7x). " +
				"A type the provider does not know yet is not refused: the plan warns, `tpu_accelerator` and `chips_per_node` must be set, and GKE decides. Changing it replaces both pools.",
			Validators:    []validator.String{validators.TPUMachineType()},
			PlanModifiers: replace,
		},
		"tpu_topology": schema.StringAttribute{
			Required:            true,
			MarkdownDescription: "TPU slice topology of both pools, e.g. `4x4` (16 chips: 4 nodes of `ct6e-standard-4t`) or `2x2x2` (TPU7x, 2 nodes). Must fit the machine type. Changing it replaces both pools.",
			Validators:          []validator.String{validators.TPUTopology()},
			PlanModifiers:       replace,
		},
		"placement_policy": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Name of the Compute Engine workload policy both pools are placed by (`--placement-policy`). GKE requires one for a multi-host TPU7x slice: " +
				"`gcloud compute resource-policies create workload-policy NAME --type=HIGH_THROUGHPUT --accelerator-topology=TOPOLOGY`, with the pools' `tpu_topology`. Changing it replaces both pools.",
			PlanModifiers: replace,
		},
		"tpu_accelerator": schema.StringAttribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: "Value of the `cloud.google.com/gke-tpu-accelerator` node label, e.g. `tpu-v6e-slice`, for RayJob node selectors. " +
				"Derived from a known machine type; set it only for a type the provider does not know yet.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(replaceStringIfSet, replaceIfSetDesc, replaceIfSetDesc)},
		},
		"chips_per_node": schema.Int64Attribute{
			Optional:            true,
			Computed:            true,
			MarkdownDescription: "TPU chips on each node (`google.com/tpu` per host). Derived from a known machine type; set it only for a type the provider does not know yet.",
			PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplaceIf(replaceInt64IfSet, replaceIfSetDesc, replaceIfSetDesc)},
		},
		"nodes_per_slice": schema.Int64Attribute{
			Computed:            true,
			MarkdownDescription: "Nodes in one slice of `tpu_topology` (a RayJob worker group's `numOfHosts`).",
		},
		"max_chips": schema.Int64Attribute{
			Computed:            true,
			MarkdownDescription: "TPU chips of each pool at `max_nodes`: the most a Kueue flavor's `google.com/tpu` quota can use (`tostring(max_chips)`), so quotas follow `max_nodes`.",
		},
		"chips_per_slice": schema.Int64Attribute{
			Computed:            true,
			MarkdownDescription: "TPU chips in one slice.",
		},
	}
}

// An imported pool of a machine type the provider does not know has no value in state for what the configuration
// tells: filling it in is not a change of the pools.
const replaceIfSetDesc = "Changing it replaces both pools."

func replaceStringIfSet(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull()
}

func replaceInt64IfSet(_ context.Context, req planmodifier.Int64Request, resp *int64planmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull()
}

// expandKind places the pool's slice. GKE refuses a topology on a single-host TPU7x pool, whose machine type says
// its shape; multi-host TPU7x pools name their workload policy, and keep the topology as other generations do.
func (m *tpuPoolPairModel) expandKind(_ poolRole, np *containerpb.NodePool) {
	if mt, ok := catalog.Lookup(m.MachineType.ValueString()); ok && mt.SingleHostTopology() == m.TPUTopology.ValueString() {
		return
	}
	np.PlacementPolicy = &containerpb.NodePool_PlacementPolicy{TpuTopology: m.TPUTopology.ValueString(), PolicyName: m.PlacementPolicy.ValueString()}
}

func (m *tpuPoolPairModel) flattenKind(np *containerpb.NodePool) {
	m.TPUTopology = types.StringValue(poolTopology(np))
	m.PlacementPolicy = types.StringNull()
	if p := np.GetPlacementPolicy().GetPolicyName(); p != "" {
		m.PlacementPolicy = types.StringValue(p)
	}
}

func (m *tpuPoolPairModel) incompatible(have, want *containerpb.NodePool) string {
	switch {
	case poolTopology(have) != poolTopology(want):
		return fmt.Sprintf("has TPU topology %q, not %q", poolTopology(have), poolTopology(want))
	case have.GetPlacementPolicy().GetPolicyName() != want.GetPlacementPolicy().GetPolicyName():
		return fmt.Sprintf("has placement policy %q, not %q", have.GetPlacementPolicy().GetPolicyName(), want.GetPlacementPolicy().GetPolicyName())
	}
	return ""
}

// slice is the TPU slice the attributes describe: from the catalog for a known machine type, from chips_per_node
// and tpu_accelerator for one the provider does not know. ok is false while an input is unknown or missing.
func (m *tpuPoolPairModel) slice() (catalog.Slice, bool) {
	if !known(m.MachineType) || !known(m.TPUTopology) {
		return catalog.Slice{}, false
	}
	if _, ok := catalog.Lookup(m.MachineType.ValueString()); ok {
		s, err := catalog.NewSlice(m.MachineType.ValueString(), m.TPUTopology.ValueString())
		return s, err == nil
	}
	if !known(m.ChipsPerNode) || !known(m.TPUAccelerator) {
		return catalog.Slice{}, false
	}
	s, err := catalog.UnknownSlice(m.MachineType.ValueString(), m.TPUAccelerator.ValueString(), m.TPUTopology.ValueString(), int(m.ChipsPerNode.ValueInt64()))
	return s, err == nil
}

// derive fills the slice attributes from machine type and topology; unknown inputs leave them unknown.
func (m *tpuPoolPairModel) derive() {
	s, ok := m.slice()
	if !ok {
		// Unknown while an input is; null when the inputs are known but do not describe a slice (validate says why).
		pending := !known(m.MachineType) || !known(m.TPUTopology) || m.ChipsPerNode.IsUnknown() || m.TPUAccelerator.IsUnknown()
		v := types.Int64Null()
		if pending {
			v = types.Int64Unknown()
		}
		if !known(m.TPUAccelerator) && !pending {
			m.TPUAccelerator = types.StringNull()
		}
		if !known(m.ChipsPerNode) && !pending {
			m.ChipsPerNode = types.Int64Null()
		}
		m.NodesPerSlice, m.ChipsPerSlice, m.MaxChips = v, v, v
		return
	}
	switch {
	case m.MaxNodes.IsUnknown():
		m.MaxChips = types.Int64Unknown()
	case m.MaxNodes.IsNull():
		m.MaxChips = types.Int64Null()
	default:
		m.MaxChips = types.Int64Value(m.MaxNodes.ValueInt64() * int64(s.ChipsPerNode))
	}
	m.TPUAccelerator = types.StringValue(s.Accelerator)
	m.ChipsPerNode = types.Int64Value(int64(s.ChipsPerNode))
	m.NodesPerSlice = types.Int64Value(int64(s.NodesPerSlice))
	m.ChipsPerSlice = types.Int64Value(int64(s.ChipsPerSlice))
}

func (m *tpuPoolPairModel) labels(pool types.String) types.Map {
	if pool.IsUnknown() || m.TPUAccelerator.IsUnknown() || m.TPUTopology.IsUnknown() {
		return types.MapUnknown(types.StringType)
	}
	return nodeLabels(pool.ValueString(), m.TPUAccelerator.ValueString(), m.TPUTopology.ValueString())
}

func (m *tpuPoolPairModel) liveLabels(np *containerpb.NodePool) types.Map {
	if np == nil {
		return types.MapNull(types.StringType)
	}
	accelerator := m.TPUAccelerator.ValueString()
	if mt, ok := catalog.Lookup(np.GetConfig().GetMachineType()); ok {
		accelerator = mt.Accelerator
	}
	return nodeLabels(np.GetName(), accelerator, poolTopology(np))
}

// poolTopology is the slice shape of a TPU pool: its topology, or for a single-host TPU7x pool, which has none, the
// shape of its one node.
func poolTopology(np *containerpb.NodePool) string {
	if t := np.GetPlacementPolicy().GetTpuTopology(); t != "" {
		return t
	}
	mt, _ := catalog.Lookup(np.GetConfig().GetMachineType())
	return mt.SingleHostTopology()
}

// nodeLabels are the labels GKE puts on every node of a TPU pool that tell it apart: the pool, and the TPU
// accelerator and topology (GKE's TPU docs select TPU nodes by these two). A Kueue flavor needs all three: Kueue
// matches a job to a flavor only on the keys the flavor lists, so a flavor with the pool label alone takes jobs of
// any TPU generation. Empty accelerator or topology leave those labels out.
func nodeLabels(pool, accelerator, topology string) types.Map {
	labels := map[string]attr.Value{gkeNodePoolLabel: types.StringValue(pool)}
	if accelerator != "" {
		labels[tpuAcceleratorLabel] = types.StringValue(accelerator)
	}
	if topology != "" {
		labels[tpuTopologyLabel] = types.StringValue(topology)
	}
	return types.MapValueMust(types.StringType, labels)
}

func (m *tpuPoolPairModel) validate(diags *diag.Diagnostics) {
	if !known(m.MachineType) || !known(m.TPUTopology) || !catalog.IsTPU(m.MachineType.ValueString()) {
		return
	}
	mt, isKnown := catalog.Lookup(m.MachineType.ValueString())
	if _, perr := catalog.ParseTopology(m.TPUTopology.ValueString()); perr != nil {
		return // the topology's own validator says why
	}
	if !isKnown {
		validateUnknownTPU(m, diags)
		return
	}
	for _, d := range []struct {
		attr  string
		set   bool
		match bool
		want  string
	}{
		{"tpu_accelerator", known(m.TPUAccelerator), m.TPUAccelerator.ValueString() == mt.Accelerator, mt.Accelerator},
		{"chips_per_node", known(m.ChipsPerNode), m.ChipsPerNode.ValueInt64() == int64(mt.ChipsPerVM), fmt.Sprint(mt.ChipsPerVM)},
	} {
		if d.set && !d.match {
			diags.AddAttributeError(path.Root(d.attr), d.attr+" contradicts the machine type",
				fmt.Sprintf("%s nodes have %s = %s. Leave %s out: it is derived from a machine type the provider knows.", mt.Name, d.attr, d.want, d.attr))
		}
	}
	s, err := catalog.NewSlice(m.MachineType.ValueString(), m.TPUTopology.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("tpu_topology"), "TPU topology does not fit the machine type", err.Error())
		return
	}
	validateSliceBounds(m, s, diags)
	if !s.MultiHost() && mt.NeedsWorkloadPolicy && !m.PlacementPolicy.IsNull() {
		diags.AddAttributeError(path.Root("placement_policy"), "Single-host "+mt.Accelerator+" slices take no placement policy",
			fmt.Sprintf("GKE refuses a topology or workload policy on a single-host %s pool (%s is one node): leave placement_policy out.", mt.Name, s.Topology))
	}
	if s.MultiHost() && mt.NeedsWorkloadPolicy && m.PlacementPolicy.IsNull() {
		diags.AddAttributeError(path.Root("placement_policy"), "Multi-host "+mt.Accelerator+" slices need a workload policy",
			fmt.Sprintf("GKE places a multi-host %s slice by a workload policy: create one with `gcloud compute resource-policies create workload-policy NAME "+
				"--type=HIGH_THROUGHPUT --accelerator-topology=%s --region=REGION` and set placement_policy = \"NAME\".", mt.Name, s.Topology))
	}
}

// validateUnknownTPU checks what it can of a machine type the provider does not know, and asks for what it cannot
// derive.
func validateUnknownTPU(m *tpuPoolPairModel, diags *diag.Diagnostics) {
	diags.AddAttributeWarning(path.Root("machine_type"), "TPU machine type not known to this provider",
		fmt.Sprintf("This provider cannot check %s against GKE's rules (topologies, slice sizes, placement); GKE's answer at apply decides. "+
			"Known types: %s.", m.MachineType.ValueString(), strings.Join(catalog.Names(), ", ")))
	askFor(m.MachineType.ValueString(), "GKE's TPU docs give it", diags,
		unknownTypeNeed{"tpu_accelerator", !m.TPUAccelerator.IsNull(), "the cloud.google.com/gke-tpu-accelerator label GKE gives its nodes"},
		unknownTypeNeed{"chips_per_node", !m.ChipsPerNode.IsNull(), "the TPU chips of one node (google.com/tpu)"})
	if s, ok := m.slice(); ok {
		validateSliceBounds(m, s, diags)
	} else if known(m.ChipsPerNode) && known(m.TPUAccelerator) {
		_, err := catalog.UnknownSlice(m.MachineType.ValueString(), m.TPUAccelerator.ValueString(), m.TPUTopology.ValueString(), int(m.ChipsPerNode.ValueInt64()))
		diags.AddAttributeError(path.Root("tpu_topology"), "TPU topology does not fit the nodes", err.Error())
	}
}

// validateSliceBounds: GKE scales a multi-host slice whole, so the autoscaling bounds are whole slices.
func validateSliceBounds(m *tpuPoolPairModel, s catalog.Slice, diags *diag.Diagnostics) {
	if !s.MultiHost() {
		return
	}
	n := int64(s.NodesPerSlice)
	for _, b := range []struct {
		attr string
		v    types.Int64
	}{{"min_nodes", m.MinNodes}, {"max_nodes", m.MaxNodes}} {
		if known(b.v) && b.v.ValueInt64()%n != 0 {
			lower := b.v.ValueInt64() / n * n
			diags.AddAttributeError(path.Root(b.attr), b.attr+" is not a whole number of TPU slices",
				fmt.Sprintf("A %s slice of %s spans %d nodes, and GKE scales multi-host slices whole, so %s must be a multiple of %d: use %d or %d instead of %d.",
					s.Topology, s.MachineType, n, b.attr, n, lower, lower+n, b.v.ValueInt64()))
		}
	}
}

// unknownTypeNeed is an attribute the provider cannot derive from a machine type it does not know.
type unknownTypeNeed struct {
	attr string
	set  bool
	what string
}

// askFor asks for each unset attribute the provider cannot derive from an unknown machine type; source says where
// the user finds it.
func askFor(machineType, source string, diags *diag.Diagnostics, needs ...unknownTypeNeed) {
	for _, need := range needs {
		if !need.set {
			diags.AddAttributeError(path.Root(need.attr), need.attr+" is needed for an unknown machine type",
				fmt.Sprintf("The provider cannot derive %s of %s: set %s, as %s for this machine type.", need.what, machineType, need.attr, source))
		}
	}
}
