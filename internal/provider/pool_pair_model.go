package provider

import (
	"fmt"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
)

type tpuPoolPairModel struct {
	ID             types.String   `tfsdk:"id"`
	Cluster        types.String   `tfsdk:"cluster"`
	Project        types.String   `tfsdk:"project"`
	Location       types.String   `tfsdk:"location"`
	MachineType    types.String   `tfsdk:"machine_type"`
	TPUTopology    types.String   `tfsdk:"tpu_topology"`
	MinNodes       types.Int64    `tfsdk:"min_nodes"`
	MaxNodes       types.Int64    `tfsdk:"max_nodes"`
	OnDemand       types.Object   `tfsdk:"on_demand"`
	FlexStart      types.Object   `tfsdk:"flex_start"`
	TPUAccelerator types.String   `tfsdk:"tpu_accelerator"`
	ChipsPerNode   types.Int64    `tfsdk:"chips_per_node"`
	NodesPerSlice  types.Int64    `tfsdk:"nodes_per_slice"`
	ChipsPerSlice  types.Int64    `tfsdk:"chips_per_slice"`
	MaxChips       types.Int64    `tfsdk:"max_chips"`
	Timeouts       timeouts.Value `tfsdk:"timeouts"`
}

// poolModel is either pool's nested object. The on-demand pool has reservation_affinity; the flex-start pool has
// flex_start_enabled and queued_provisioning. Attributes a role lacks are left out of its object type.
type poolModel struct {
	Name                types.String
	ReservationAffinity types.String
	Status              types.String
	NodeLabels          types.Map
	FlexStartEnabled    types.Bool
	QueuedProvisioning  types.Bool
}

// poolRole is what differs between plan A and plan B.
type poolRole struct {
	attr string // on_demand or flex_start
	flex bool
}

var (
	onDemandRole  = poolRole{attr: "on_demand"}
	flexStartRole = poolRole{attr: "flex_start", flex: true}
	poolRoles     = []poolRole{onDemandRole, flexStartRole}
)

func (r poolRole) attrTypes() map[string]attr.Type {
	t := map[string]attr.Type{
		"name":        types.StringType,
		"status":      types.StringType,
		"node_labels": types.MapType{ElemType: types.StringType},
	}
	if r.flex {
		t["flex_start_enabled"] = types.BoolType
		t["queued_provisioning"] = types.BoolType
	} else {
		t["reservation_affinity"] = types.StringType
	}
	return t
}

func (r poolRole) get(m *tpuPoolPairModel) types.Object {
	if r.flex {
		return m.FlexStart
	}
	return m.OnDemand
}

func (r poolRole) set(m *tpuPoolPairModel, o types.Object) {
	if r.flex {
		m.FlexStart = o
	} else {
		m.OnDemand = o
	}
}

// decodePool reads a pool object; ok is false when it is null or unknown.
func (r poolRole) decodePool(o types.Object) (p poolModel, ok bool) {
	if o.IsNull() || o.IsUnknown() {
		return p, false
	}
	a := o.Attributes()
	str := func(k string) types.String {
		if v, ok := a[k].(types.String); ok {
			return v
		}
		return types.StringNull()
	}
	boolean := func(k string) types.Bool {
		if v, ok := a[k].(types.Bool); ok {
			return v
		}
		return types.BoolNull()
	}
	p.Name, p.Status, p.ReservationAffinity = str("name"), str("status"), str("reservation_affinity")
	p.FlexStartEnabled, p.QueuedProvisioning = boolean("flex_start_enabled"), boolean("queued_provisioning")
	if v, ok := a["node_labels"].(types.Map); ok {
		p.NodeLabels = v
	} else {
		p.NodeLabels = types.MapNull(types.StringType)
	}
	return p, true
}

func (r poolRole) encodePool(p poolModel) types.Object {
	vals := map[string]attr.Value{"name": p.Name, "status": p.Status, "node_labels": p.NodeLabels}
	if r.flex {
		vals["flex_start_enabled"], vals["queued_provisioning"] = p.FlexStartEnabled, p.QueuedProvisioning
	} else {
		vals["reservation_affinity"] = p.ReservationAffinity
	}
	return types.ObjectValueMust(r.attrTypes(), vals)
}

// nodeLabels are the labels GKE puts on every node of a TPU pool that tell it apart: the pool, and the TPU
// accelerator and topology (GKE's TPU docs select TPU nodes by these two). A Kueue flavor needs all three: Kueue
// matches a job to a flavor only on the keys the flavor lists, so a flavor with the pool label alone takes jobs of
// any TPU generation. Empty accelerator or topology (not known from the machine type) leave those labels out.
func nodeLabels(pool, accelerator, topology string) types.Map {
	labels := map[string]attr.Value{"cloud.google.com/gke-nodepool": types.StringValue(pool)}
	if accelerator != "" {
		labels[tpuAcceleratorLabel] = types.StringValue(accelerator)
	}
	if topology != "" {
		labels[tpuTopologyLabel] = types.StringValue(topology)
	}
	return types.MapValueMust(types.StringType, labels)
}

// poolNodeLabels are nodeLabels of a pool as GKE reports it.
func poolNodeLabels(np *containerpb.NodePool) types.Map {
	accelerator := ""
	if mt, ok := catalog.Lookup(np.GetConfig().GetMachineType()); ok {
		accelerator = mt.Accelerator
	}
	return nodeLabels(np.GetName(), accelerator, np.GetPlacementPolicy().GetTpuTopology())
}

// expandNodePool is the node pool the tutorial's gcloud command creates for this role, field for field, so that pools
// made by either are equal.
func expandNodePool(r poolRole, p poolModel, m *tpuPoolPairModel) *containerpb.NodePool {
	np := &containerpb.NodePool{
		Name:             p.Name.ValueString(),
		InitialNodeCount: 0,
		Autoscaling: &containerpb.NodePoolAutoscaling{
			Enabled:      true,
			MinNodeCount: int32(m.MinNodes.ValueInt64()),
			MaxNodeCount: int32(m.MaxNodes.ValueInt64()),
		},
		Config: &containerpb.NodeConfig{
			MachineType: m.MachineType.ValueString(),
			OauthScopes: gcloudDefaultScopes(),
		},
		Management:      &containerpb.NodeManagement{AutoRepair: true, AutoUpgrade: true},
		PlacementPolicy: &containerpb.NodePool_PlacementPolicy{TpuTopology: m.TPUTopology.ValueString()},
		UpgradeSettings: &containerpb.NodePool_UpgradeSettings{MaxSurge: 1},
	}
	if r.flex {
		flex := true
		np.Config.FlexStart = &flex
		np.QueuedProvisioning = &containerpb.NodePool_QueuedProvisioning{Enabled: true}
		return np
	}
	if p.ReservationAffinity.ValueString() != "any" {
		np.Config.ReservationAffinity = &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_NO_RESERVATION}
	}
	return np
}

// gcloudDefaultScopes are the node scopes gcloud sends when none are asked for.
func gcloudDefaultScopes() []string {
	return []string{
		"https://www.googleapis.com/auth/devstorage.read_only",
		"https://www.googleapis.com/auth/logging.write",
		"https://www.googleapis.com/auth/monitoring",
		"https://www.googleapis.com/auth/service.management.readonly",
		"https://www.googleapis.com/auth/servicecontrol",
		"https://www.googleapis.com/auth/trace.append",
	}
}

// flattenNodePool reads what the resource tracks of a pool from GKE's answer. A nil pool gives a null object.
func flattenNodePool(r poolRole, np *containerpb.NodePool) types.Object {
	if np == nil {
		return types.ObjectNull(r.attrTypes())
	}
	p := poolModel{
		Name:       types.StringValue(np.GetName()),
		Status:     types.StringValue(np.GetStatus().String()),
		NodeLabels: poolNodeLabels(np),
	}
	if r.flex {
		p.FlexStartEnabled = types.BoolValue(np.GetConfig().GetFlexStart())
		p.QueuedProvisioning = types.BoolValue(np.GetQueuedProvisioning().GetEnabled())
	} else {
		p.ReservationAffinity = types.StringValue(reservationAffinity(np))
	}
	return r.encodePool(p)
}

func reservationAffinity(np *containerpb.NodePool) string {
	switch np.GetConfig().GetReservationAffinity().GetConsumeReservationType() {
	case containerpb.ReservationAffinity_NO_RESERVATION:
		return "none"
	case containerpb.ReservationAffinity_SPECIFIC_RESERVATION:
		return "specific"
	default:
		// GKE's default for a pool created without an affinity is to consume any matching reservation.
		return "any"
	}
}

// setSlice fills the slice attributes from machine type and topology; unknown inputs leave them unknown.
func setSlice(m *tpuPoolPairModel) {
	if m.MachineType.IsUnknown() || m.TPUTopology.IsUnknown() {
		m.TPUAccelerator, m.ChipsPerNode = types.StringUnknown(), types.Int64Unknown()
		m.NodesPerSlice, m.ChipsPerSlice, m.MaxChips = types.Int64Unknown(), types.Int64Unknown(), types.Int64Unknown()
		return
	}
	s, err := catalog.NewSlice(m.MachineType.ValueString(), m.TPUTopology.ValueString())
	if err != nil {
		m.MaxChips = types.Int64Null()
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

// splitPoolPairID reads projects/P/locations/L/clusters/C/nodePools/ONDEMAND,FLEX.
func splitPoolPairID(id string) (clusterRef, string, string, error) {
	i := strings.Index(id, "/nodePools/")
	if i < 0 {
		return clusterRef{}, "", "", fmt.Errorf("id %q must look like projects/PROJECT/locations/LOCATION/clusters/CLUSTER/nodePools/ON_DEMAND_POOL,FLEX_START_POOL", id)
	}
	ref, err := parseCluster(id[:i])
	if err != nil || ref.Project == "" {
		return clusterRef{}, "", "", fmt.Errorf("id %q must look like projects/PROJECT/locations/LOCATION/clusters/CLUSTER/nodePools/ON_DEMAND_POOL,FLEX_START_POOL", id)
	}
	names := strings.Split(id[i+len("/nodePools/"):], ",")
	if len(names) != 2 || names[0] == "" || names[1] == "" || names[0] == names[1] {
		return clusterRef{}, "", "", fmt.Errorf("id %q must end with two different pool names, the on-demand one first: nodePools/ON_DEMAND_POOL,FLEX_START_POOL", id)
	}
	return ref, names[0], names[1], nil
}

func poolPairID(c clusterRef, onDemand, flex string) string {
	return fmt.Sprintf("%s/nodePools/%s,%s", c, onDemand, flex)
}

// flattenPair sets st from GKE's view of the two pools. The shared attributes come from whichever pool exists; where
// one pool's autoscaling bounds differ from state (changed by hand), that pool's value is read, whichever pool it is,
// so the drift shows in the plan; the apply then sets only the pools that differ.
func flattenPair(st *tpuPoolPairModel, ref clusterRef, onDemand, flex *containerpb.NodePool) {
	st.Project, st.Location = types.StringValue(ref.Project), types.StringValue(ref.Location)
	st.OnDemand = flattenNodePool(onDemandRole, onDemand)
	st.FlexStart = flattenNodePool(flexStartRole, flex)
	minN, maxN := st.MinNodes, st.MaxNodes
	drifted := func(was types.Int64, live int64) bool { return was.IsNull() || was.ValueInt64() != live }
	for _, np := range []*containerpb.NodePool{onDemand, flex} {
		if np == nil {
			continue
		}
		st.MachineType = types.StringValue(np.GetConfig().GetMachineType())
		st.TPUTopology = types.StringValue(np.GetPlacementPolicy().GetTpuTopology())
		as := np.GetAutoscaling()
		lo, hi := int64(as.GetMinNodeCount()), int64(as.GetMaxNodeCount())
		if !as.GetEnabled() {
			lo, hi = 0, 0
		}
		// Compared with state, not with the other pool: a pool that matches state must not hide one that does not.
		if drifted(st.MinNodes, lo) {
			minN = types.Int64Value(lo)
		}
		if drifted(st.MaxNodes, hi) {
			maxN = types.Int64Value(hi)
		}
	}
	st.MinNodes, st.MaxNodes = minN, maxN
	setSlice(st)
}

func needsReplacement(role poolRole, have *containerpb.NodePool, want poolModel) bool {
	if have.GetName() != want.Name.ValueString() || have.GetStatus() == containerpb.NodePool_ERROR {
		return true
	}
	return !role.flex && reservationAffinity(have) != want.ReservationAffinity.ValueString()
}

// incompatible says why an existing pool cannot stand in for the one this resource would create, or "".
func incompatible(role poolRole, have, want *containerpb.NodePool) string {
	switch {
	case have.GetConfig().GetMachineType() != want.GetConfig().GetMachineType():
		return fmt.Sprintf("has machine type %s, not %s", have.GetConfig().GetMachineType(), want.GetConfig().GetMachineType())
	case have.GetPlacementPolicy().GetTpuTopology() != want.GetPlacementPolicy().GetTpuTopology():
		return fmt.Sprintf("has TPU topology %q, not %q", have.GetPlacementPolicy().GetTpuTopology(), want.GetPlacementPolicy().GetTpuTopology())
	case role.flex && (!have.GetConfig().GetFlexStart() || !have.GetQueuedProvisioning().GetEnabled()):
		return "is not a flex-start pool with queued provisioning"
	case !role.flex && (have.GetConfig().GetFlexStart() || have.GetQueuedProvisioning().GetEnabled()):
		return "is a flex-start or queued-provisioning pool, not an on-demand one"
	}
	return ""
}
