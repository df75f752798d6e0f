package poolpair

import (
	"fmt"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

type tpuPoolPairModel struct {
	poolPairModel
	TPUTopology     types.String `tfsdk:"tpu_topology"`
	PlacementPolicy types.String `tfsdk:"placement_policy"`
	TPUAccelerator  types.String `tfsdk:"tpu_accelerator"`
	ChipsPerNode    types.Int64  `tfsdk:"chips_per_node"`
	NodesPerSlice   types.Int64  `tfsdk:"nodes_per_slice"`
	ChipsPerSlice   types.Int64  `tfsdk:"chips_per_slice"`
	MaxChips        types.Int64  `tfsdk:"max_chips"`
	Slices          types.Int64  `tfsdk:"slices"`
	OnDemandPools   types.List   `tfsdk:"on_demand_pools"`
	FlexStartPools  types.List   `tfsdk:"flex_start_pools"`
}

func (m *tpuPoolPairModel) pair() *poolPairModel { return &m.poolPairModel }

// kindImporter is a kind whose own attributes need typed nulls in the state an import starts from.
type kindImporter interface{ importNulls() }

func (m *tpuPoolPairModel) importNulls() {
	m.OnDemandPools, m.FlexStartPools = types.ListNull(types.StringType), types.ListNull(types.StringType)
}

func (m *tpuPoolPairModel) slices() int64 {
	if !tfvalue.Known(m.Slices) || m.Slices.ValueInt64() < 1 {
		return 1
	}
	return m.Slices.ValueInt64()
}

func (m *tpuPoolPairModel) reservationUnit() int64 {
	if !tfvalue.Known(m.NodesPerSlice) {
		return 0
	}
	return m.NodesPerSlice.ValueInt64()
}

func (m *tpuPoolPairModel) setSlices(n int64)        { m.Slices = types.Int64Value(n) }
func (m *tpuPoolPairModel) slicesValue() types.Int64 { return m.Slices }

// expandKind places the pool's slice. GKE refuses a topology on a single-host TPU7x pool, whose machine type says
// its shape; multi-host TPU7x pools name their workload policy, and keep the topology as other generations do.
func (m *tpuPoolPairModel) expandKind(_ poolRole, np *containerpb.NodePool) {
	if mt, ok := catalog.Lookup(m.MachineType.ValueString()); ok && mt.SingleHostTopology() == m.TPUTopology.ValueString() {
		return
	}
	np.PlacementPolicy = &containerpb.NodePool_PlacementPolicy{TpuTopology: m.TPUTopology.ValueString(), PolicyName: m.PlacementPolicy.ValueString()}
}

func (m *tpuPoolPairModel) flattenKind(np *containerpb.NodePool) {
	m.TPUTopology = types.StringValue(gke.PoolTopology(np))
	m.PlacementPolicy = types.StringNull()
	if p := np.GetPlacementPolicy().GetPolicyName(); p != "" {
		m.PlacementPolicy = types.StringValue(p)
	}
}

func (m *tpuPoolPairModel) incompatible(have, want *containerpb.NodePool) string {
	switch {
	case gke.PoolTopology(have) != gke.PoolTopology(want):
		return fmt.Sprintf("has TPU topology %q, not %q", gke.PoolTopology(have), gke.PoolTopology(want))
	case have.GetPlacementPolicy().GetPolicyName() != want.GetPlacementPolicy().GetPolicyName():
		return fmt.Sprintf("has placement policy %q, not %q", have.GetPlacementPolicy().GetPolicyName(), want.GetPlacementPolicy().GetPolicyName())
	}
	return ""
}

// slice is the TPU slice the attributes describe: from the catalog for a known machine type, from chips_per_node
// and tpu_accelerator for one the provider does not know. ok is false while an input is unknown or missing.
func (m *tpuPoolPairModel) slice() (catalog.Slice, bool) {
	if !tfvalue.Known(m.MachineType) || !tfvalue.Known(m.TPUTopology) {
		return catalog.Slice{}, false
	}
	if _, ok := catalog.Lookup(m.MachineType.ValueString()); ok {
		s, err := catalog.NewSlice(m.MachineType.ValueString(), m.TPUTopology.ValueString())
		return s, err == nil
	}
	if !tfvalue.Known(m.ChipsPerNode) || !tfvalue.Known(m.TPUAccelerator) {
		return catalog.Slice{}, false
	}
	s, err := catalog.UnknownSlice(m.MachineType.ValueString(), m.TPUAccelerator.ValueString(), m.TPUTopology.ValueString(), int(m.ChipsPerNode.ValueInt64()))
	return s, err == nil
}

// derive fills the slice attributes from machine type and topology, and each plan's pools from its name and slices;
// unknown inputs leave them unknown.
func (m *tpuPoolPairModel) derive() {
	m.OnDemandPools, m.FlexStartPools = m.planPools(onDemandRole), m.planPools(flexStartRole)
	s, ok := m.slice()
	if !ok {
		// Unknown while an input is; null when the inputs are known but do not describe a slice (validate says why).
		pending := !tfvalue.Known(m.MachineType) || !tfvalue.Known(m.TPUTopology) || m.ChipsPerNode.IsUnknown() || m.TPUAccelerator.IsUnknown()
		v := types.Int64Null()
		if pending {
			v = types.Int64Unknown()
		}
		if !tfvalue.Known(m.TPUAccelerator) && !pending {
			m.TPUAccelerator = types.StringNull()
		}
		if !tfvalue.Known(m.ChipsPerNode) && !pending {
			m.ChipsPerNode = types.Int64Null()
		}
		m.NodesPerSlice, m.ChipsPerSlice, m.MaxChips = v, v, v
		return
	}
	switch {
	case m.MaxNodes.IsUnknown() || m.Slices.IsUnknown():
		m.MaxChips = types.Int64Unknown()
	case m.MaxNodes.IsNull():
		m.MaxChips = types.Int64Null()
	default:
		m.MaxChips = types.Int64Value(m.MaxNodes.ValueInt64() * int64(s.ChipsPerNode) * m.slices())
	}
	m.TPUAccelerator = types.StringValue(s.Accelerator)
	m.ChipsPerNode = types.Int64Value(int64(s.ChipsPerNode))
	m.NodesPerSlice = types.Int64Value(int64(s.NodesPerSlice))
	m.ChipsPerSlice = types.Int64Value(int64(s.ChipsPerSlice))
}

// planPools names the pools of role's plan, the first one first.
func (m *tpuPoolPairModel) planPools(role poolRole) types.List {
	o := role.get(m.pair())
	p, ok := role.decodePool(o)
	switch {
	case !ok && o.IsUnknown(), ok && p.Name.IsUnknown(), m.Slices.IsUnknown():
		return types.ListUnknown(types.StringType)
	case !ok || p.Name.IsNull():
		return types.ListNull(types.StringType)
	}
	var names []attr.Value
	for _, n := range slicePoolNames(p.Name.ValueString(), m.slices()) {
		names = append(names, types.StringValue(n))
	}
	return types.ListValueMust(types.StringType, names)
}

func (m *tpuPoolPairModel) labels(pool types.String) types.Map {
	if pool.IsUnknown() || m.TPUAccelerator.IsUnknown() || m.TPUTopology.IsUnknown() || m.Slices.IsUnknown() {
		return types.MapUnknown(types.StringType)
	}
	key := wellknown.NodePoolLabel
	if m.slices() > 1 {
		key = wellknown.SliceGroupLabel
	}
	return nodeLabels(key, pool.ValueString(), m.TPUAccelerator.ValueString(), m.TPUTopology.ValueString())
}

func (m *tpuPoolPairModel) liveLabels(np *containerpb.NodePool) types.Map {
	if np == nil {
		return types.MapNull(types.StringType)
	}
	accelerator := m.TPUAccelerator.ValueString()
	if mt, ok := catalog.Lookup(np.GetConfig().GetMachineType()); ok {
		accelerator = mt.Accelerator
	}
	if group, ok := np.GetConfig().GetLabels()[wellknown.SliceGroupLabel]; ok {
		return nodeLabels(wellknown.SliceGroupLabel, group, accelerator, gke.PoolTopology(np))
	}
	return nodeLabels(wellknown.NodePoolLabel, np.GetName(), accelerator, gke.PoolTopology(np))
}

// nodeLabels are the labels every node of a TPU plan carries that tell it apart: the pool's (GKE's node pool label,
// or the pair's slice group for a plan of several pools), and the TPU accelerator and topology (GKE's TPU docs select
// TPU nodes by these two). A Kueue flavor needs all three: Kueue matches a job to a flavor only on the keys the flavor
// lists, so a flavor with the pool label alone takes jobs of any TPU generation. Empty accelerator or topology leave
// those labels out.
func nodeLabels(poolKey, pool, accelerator, topology string) types.Map {
	labels := map[string]attr.Value{poolKey: types.StringValue(pool)}
	if accelerator != "" {
		labels[wellknown.TPUAcceleratorLabel] = types.StringValue(accelerator)
	}
	if topology != "" {
		labels[wellknown.TPUTopologyLabel] = types.StringValue(topology)
	}
	return types.MapValueMust(types.StringType, labels)
}
