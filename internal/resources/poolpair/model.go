package poolpair

import (
	"fmt"
	"slices"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// poolPairModel holds the attributes every pool pair has; each kind's model embeds it.
type poolPairModel struct {
	ID          types.String `tfsdk:"id"`
	Cluster     types.String `tfsdk:"cluster"`
	Project     types.String `tfsdk:"project"`
	Location    types.String `tfsdk:"location"`
	MachineType types.String `tfsdk:"machine_type"`
	MinNodes    types.Int64  `tfsdk:"min_nodes"`
	MaxNodes    types.Int64  `tfsdk:"max_nodes"`
	// ComputeClass is the GKE ComputeClass both pools joined (its node label and taint), null for none.
	ComputeClass types.String `tfsdk:"compute_class"`
	// The nodes' identity, labels and taints, alike on both pools.
	ServiceAccount types.String `tfsdk:"service_account"`
	OauthScopes    types.Set    `tfsdk:"oauth_scopes"`
	ResourceLabels types.Map    `tfsdk:"resource_labels"`
	NetworkTags    types.List   `tfsdk:"network_tags"`
	Labels         types.Map    `tfsdk:"labels"`
	Taints         types.List   `tfsdk:"taints"`
	DiskType       types.String `tfsdk:"disk_type"`
	DiskSizeGB     types.Int64  `tfsdk:"disk_size_gb"`
	Gvnic          types.Bool   `tfsdk:"gvnic"`
	// NodeLocations are both pools' zones; GKE's choice (read back) where the configuration leaves them out.
	NodeLocations types.Set `tfsdk:"node_locations"`
	// SecondaryBootDisks are disks made from images on every node of both pools, set only on a new pool.
	SecondaryBootDisks types.List   `tfsdk:"secondary_boot_disks"`
	OnDemand           types.Object `tfsdk:"on_demand"`
	FlexStart          types.Object `tfsdk:"flex_start"`
	// Drift names each field of either pool that differs from what the last apply made of it.
	Drift    types.List     `tfsdk:"drift"`
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

// pairModel is what a kind of pool pair (TPU, GPU) adds to the shared attributes and CRUD.
type pairModel interface {
	pair() *poolPairModel
	// expandKind sets on a pool the pair creates what the kind needs: the TPU slice, or the GPUs.
	expandKind(role poolRole, np *containerpb.NodePool)
	// flattenKind reads the kind's attributes from a live pool of the pair.
	flattenKind(np *containerpb.NodePool)
	// derive fills the computed attributes the configuration determines; unknown inputs leave them unknown.
	derive()
	// labels are the node labels a Kueue flavor of the pool named pool should list; unknown while an input is.
	labels(pool types.String) types.Map
	// liveLabels are those labels of a live pool.
	liveLabels(np *containerpb.NodePool) types.Map
	// incompatible says why an existing pool has not the kind's settings of want, or "".
	incompatible(have, want *containerpb.NodePool) string
	// validate checks the kind's rules on the configuration alone.
	validate(diags *diag.Diagnostics)
	// slices is how many pools each plan has, one slice each (1 where the kind has no slices, or while unknown);
	// setSlices records how many the cluster has.
	slices() int64
	slicesValue() types.Int64
	// reservationUnit is how many nodes of a reservation one job takes from one pool: a multi-host TPU slice is
	// made whole or not at all. 0 while unknown.
	reservationUnit() int64
	setSlices(n int64)
}

type pairModelPtr[M any] interface {
	*M
	pairModel
}

// poolModel is either pool's nested object. The on-demand pool has reservation_affinity and reservation; the
// flex-start pool has provisioning, max_run_duration, flex_start_enabled and queued_provisioning. Attributes a role
// lacks are left out of its object type.
type poolModel struct {
	Name                types.String
	ReservationAffinity types.String
	Reservation         types.String
	MaxRunDuration      types.String
	Provisioning        types.String
	Status              types.String
	NodeLabels          types.Map
	FlexStartEnabled    types.Bool
	QueuedProvisioning  types.Bool
	// Lifecycle: auto-repair and auto-upgrade on both pools, surge upgrades on plan A (plan B's upgrades are GKE's).
	AutoRepair     types.Bool
	AutoUpgrade    types.Bool
	MaxSurge       types.Int64
	MaxUnavailable types.Int64
	BlueGreen      types.Object
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
		"name":         types.StringType,
		"status":       types.StringType,
		"node_labels":  types.MapType{ElemType: types.StringType},
		"auto_repair":  types.BoolType,
		"auto_upgrade": types.BoolType,
	}
	if r.flex {
		t["provisioning"] = types.StringType
		t["max_run_duration"] = types.StringType
		t["flex_start_enabled"] = types.BoolType
		t["queued_provisioning"] = types.BoolType
	} else {
		t["reservation_affinity"] = types.StringType
		t["reservation"] = types.StringType
		t["max_surge"] = types.Int64Type
		t["max_unavailable"] = types.Int64Type
		t["blue_green"] = types.ObjectType{AttrTypes: blueGreenTypes}
	}
	return t
}

func (r poolRole) get(m *poolPairModel) types.Object {
	if r.flex {
		return m.FlexStart
	}
	return m.OnDemand
}

func (r poolRole) set(m *poolPairModel, o types.Object) {
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
	p.Name, p.Status, p.ReservationAffinity, p.Provisioning = str("name"), str("status"), str("reservation_affinity"), str("provisioning")
	p.Reservation, p.MaxRunDuration = str("reservation"), str("max_run_duration")
	p.FlexStartEnabled, p.QueuedProvisioning = boolean("flex_start_enabled"), boolean("queued_provisioning")
	p.AutoRepair, p.AutoUpgrade = boolean("auto_repair"), boolean("auto_upgrade")
	integer := func(k string) types.Int64 {
		if v, ok := a[k].(types.Int64); ok {
			return v
		}
		return types.Int64Null()
	}
	p.MaxSurge, p.MaxUnavailable = integer("max_surge"), integer("max_unavailable")
	p.BlueGreen = types.ObjectNull(blueGreenTypes)
	if v, ok := a["blue_green"].(types.Object); ok {
		p.BlueGreen = v
	}
	if v, ok := a["node_labels"].(types.Map); ok {
		p.NodeLabels = v
	} else {
		p.NodeLabels = types.MapNull(types.StringType)
	}
	return p, true
}

func (r poolRole) encodePool(p poolModel) types.Object {
	vals := map[string]attr.Value{"name": p.Name, "status": p.Status, "node_labels": p.NodeLabels,
		"auto_repair": p.AutoRepair, "auto_upgrade": p.AutoUpgrade}
	if r.flex {
		vals["provisioning"], vals["flex_start_enabled"], vals["queued_provisioning"] = p.Provisioning, p.FlexStartEnabled, p.QueuedProvisioning
		vals["max_run_duration"] = p.MaxRunDuration
	} else {
		vals["reservation_affinity"], vals["reservation"] = p.ReservationAffinity, p.Reservation
		vals["max_surge"], vals["max_unavailable"] = p.MaxSurge, p.MaxUnavailable
		vals["blue_green"] = p.BlueGreen
	}
	return types.ObjectValueMust(r.attrTypes(), vals)
}

// expandNodePool is the node pool the DWS docs' gcloud commands create for this role, field for field, so that pools
// made by either are equal.
func expandNodePool(r poolRole, p poolModel, m pairModel) *containerpb.NodePool {
	pm := m.pair()
	np := &containerpb.NodePool{
		Name:             p.Name.ValueString(),
		InitialNodeCount: 0,
		Autoscaling: &containerpb.NodePoolAutoscaling{
			Enabled:      true,
			MinNodeCount: int32(pm.MinNodes.ValueInt64()), //nolint:gosec // validated to 0..1000
			MaxNodeCount: int32(pm.MaxNodes.ValueInt64()), //nolint:gosec // validated to 1..1000
		},
		Config: &containerpb.NodeConfig{
			MachineType: pm.MachineType.ValueString(),
		},
		Management:      &containerpb.NodeManagement{AutoRepair: true, AutoUpgrade: true},
		UpgradeSettings: &containerpb.NodePool_UpgradeSettings{MaxSurge: 1},
	}
	if r.flex {
		mode := p.Provisioning.ValueString()
		if mode != provisioningQueued {
			flex := true
			np.Config.FlexStart = &flex
		}
		if mode == provisioningUnqueued {
			np.Config.ReservationAffinity = &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_NO_RESERVATION}
		} else {
			np.QueuedProvisioning = &containerpb.NodePool_QueuedProvisioning{Enabled: true}
		}
		if d, ok := parseRunDuration(p.MaxRunDuration); ok {
			np.Config.MaxRunDuration = durationpb.New(d)
		}
	} else {
		np.Config.ReservationAffinity = expandReservationAffinity(p)
	}
	expandNodeSettings(pm, np.Config)
	np.Locations = zonesOf(pm.NodeLocations)
	if class := pm.ComputeClass.ValueString(); class != "" {
		if np.Config.Labels == nil {
			np.Config.Labels = map[string]string{}
		}
		np.Config.Labels[wellknown.ComputeClassLabel] = class
		np.Config.Taints = append(np.Config.Taints, gke.ClassTaint(class))
	}
	m.expandKind(r, np)
	expandLifecycle(r, p, np)
	if base, ok := r.decodePool(r.get(pm)); ok {
		withSliceGroup(np, base.Name.ValueString(), m.slices())
	}
	return np
}

// poolClass is the ComputeClass a pool joined, null for none. A pool that has the label without the one matching
// NoSchedule taint, or a class taint without the label, is half in: it reads as that, so that the plan shows it and
// the apply sets both again.
func poolClass(np *containerpb.NodePool) types.String {
	label, labelled := np.GetConfig().GetLabels()[wellknown.ComputeClassLabel]
	taints := 0
	for _, t := range np.GetConfig().GetTaints() {
		if t.Key == wellknown.ComputeClassLabel {
			taints++
		}
	}
	switch {
	case !labelled && taints == 0:
		return types.StringNull()
	case labelled && taints == 1 && gke.HasClassTaint(np, label):
		return types.StringValue(label)
	case labelled:
		return types.StringValue(label + " (without its NoSchedule taint)")
	default:
		return types.StringValue("(a ComputeClass taint without the label)")
	}
}

func orNoClass(s types.String) string {
	if s.IsNull() {
		return "none"
	}
	return s.ValueString()
}

// classSettings are a pool's labels and taints with the ComputeClass's replaced by class's (none for ""), the other
// labels and taints left as they are; changed is false when nothing would change.
func classSettings(np *containerpb.NodePool, class string) (labels map[string]string, taints []*containerpb.NodeTaint, changed bool) {
	labels = map[string]string{}
	for k, v := range np.GetConfig().GetLabels() {
		if k != wellknown.ComputeClassLabel {
			labels[k] = v
		}
	}
	var theirs []*containerpb.NodeTaint
	for _, t := range np.GetConfig().GetTaints() {
		if t.Key == wellknown.ComputeClassLabel {
			theirs = append(theirs, t)
		} else {
			taints = append(taints, t)
		}
	}
	if class == "" {
		changed = !poolClass(np).IsNull() || len(theirs) > 0
		return labels, taints, changed
	}
	labels[wellknown.ComputeClassLabel] = class
	taints = append(taints, gke.ClassTaint(class))
	changed = poolClass(np).ValueString() != class || len(theirs) != 1 || !gke.HasClassTaint(np, class)
	return labels, taints, changed
}

// The ways plan B's pool gets its capacity from the Dynamic Workload Scheduler.
const (
	provisioningFlexStart = "flex-start" // queued provisioning of flex-start VMs: the tutorial's
	provisioningQueued    = "queued"     // queued provisioning alone
	// flex-start VMs that the ordinary autoscaler adds one by one, with no ProvisioningRequest: a ComputeClass's plan B.
	provisioningUnqueued = "flex-start-unqueued"
)

// poolBounds are a pool's autoscaling bounds: per zone, or over all zones when those are set (GKE's DWS pools).
func poolBounds(as *containerpb.NodePoolAutoscaling) (lo, hi int64) {
	switch {
	case !as.GetEnabled():
		return 0, 0
	case as.GetTotalMaxNodeCount() > 0:
		return int64(as.GetTotalMinNodeCount()), int64(as.GetTotalMaxNodeCount())
	default:
		return int64(as.GetMinNodeCount()), int64(as.GetMaxNodeCount())
	}
}

// flattenNodePool reads what the resource tracks of a pool from GKE's answer, with the node labels the kind derives
// from it. A nil pool gives a null object.
func flattenNodePool(r poolRole, np *containerpb.NodePool, labels types.Map) types.Object {
	if np == nil {
		return types.ObjectNull(r.attrTypes())
	}
	p := poolModel{
		Name:        types.StringValue(np.GetName()),
		Status:      types.StringValue(np.GetStatus().String()),
		NodeLabels:  labels,
		AutoRepair:  types.BoolValue(np.GetManagement().GetAutoRepair()),
		AutoUpgrade: types.BoolValue(np.GetManagement().GetAutoUpgrade()),
	}
	if r.flex {
		p.Provisioning = types.StringValue(provisioningOf(np))
		p.FlexStartEnabled = types.BoolValue(np.GetConfig().GetFlexStart())
		p.QueuedProvisioning = types.BoolValue(np.GetQueuedProvisioning().GetEnabled())
		p.MaxRunDuration = types.StringNull()
		if d := np.GetConfig().GetMaxRunDuration(); d != nil {
			p.MaxRunDuration = types.StringValue(formatRunDuration(d.AsDuration()))
		}
	} else {
		p.MaxSurge = types.Int64Value(int64(np.GetUpgradeSettings().GetMaxSurge()))
		p.MaxUnavailable = types.Int64Value(int64(np.GetUpgradeSettings().GetMaxUnavailable()))
		p.BlueGreen = flattenBlueGreen(np)
		p.ReservationAffinity = types.StringValue(reservationAffinity(np))
		p.Reservation = types.StringNull()
		if r := reservationOf(np); r != "" {
			p.Reservation = types.StringValue(r)
		}
	}
	return r.encodePool(p)
}

// provisioningOf names how a pool gets its capacity, "" for a pool of neither flex-start nor queued provisioning.
func provisioningOf(np *containerpb.NodePool) string {
	flex, queued := np.GetConfig().GetFlexStart(), np.GetQueuedProvisioning().GetEnabled()
	switch {
	case flex && queued:
		return provisioningFlexStart
	case queued:
		return provisioningQueued
	case flex:
		return provisioningUnqueued
	}
	return ""
}

func reservationAffinity(np *containerpb.NodePool) string {
	switch np.GetConfig().GetReservationAffinity().GetConsumeReservationType() {
	case containerpb.ReservationAffinity_NO_RESERVATION:
		return "none"
	case containerpb.ReservationAffinity_SPECIFIC_RESERVATION:
		return "specific"
	case containerpb.ReservationAffinity_ANY_RESERVATION_THEN_FAIL:
		return reservationAnyThenFail
	default:
		// GKE's default for a pool created without an affinity is to consume any matching reservation.
		return "any"
	}
}

// splitPoolPairID reads projects/P/locations/L/clusters/C/nodePools/ONDEMAND,FLEX.
func splitPoolPairID(id string) (clusterscope.Ref, string, string, error) {
	i := strings.Index(id, "/nodePools/")
	if i < 0 {
		return clusterscope.Ref{}, "", "", fmt.Errorf("id %q must look like projects/PROJECT/locations/LOCATION/clusters/CLUSTER/nodePools/ON_DEMAND_POOL,FLEX_START_POOL", id)
	}
	ref, err := clusterscope.Parse(id[:i])
	if err != nil || ref.Project == "" {
		return clusterscope.Ref{}, "", "", fmt.Errorf("id %q must look like projects/PROJECT/locations/LOCATION/clusters/CLUSTER/nodePools/ON_DEMAND_POOL,FLEX_START_POOL", id)
	}
	names := strings.Split(id[i+len("/nodePools/"):], ",")
	if len(names) != 2 || names[0] == "" || names[1] == "" || names[0] == names[1] {
		return clusterscope.Ref{}, "", "", fmt.Errorf("id %q must end with two different pool names, the on-demand one first: nodePools/ON_DEMAND_POOL,FLEX_START_POOL", id)
	}
	return ref, names[0], names[1], nil
}

func poolPairID(c clusterscope.Ref, onDemand, flex string) string {
	return fmt.Sprintf("%s/nodePools/%s,%s", c, onDemand, flex)
}

// flattenPair sets st from GKE's view of the two pools. Each shared attribute is compared with state pool by pool:
// where one pool differs (changed by hand), that pool's value is read, whichever pool it is, so that a pool that
// matches state never hides one that does not; `drift` names the pool. The apply then sets only the pools that differ.
//
// identity says to read the service account and scopes too, which GKE sets only at creation: on an import, or for
// a pair with no baselines (applied by 0.1.x, which may have imported a pool of another account). Otherwise a pool
// changed by hand shows in drift, and the apply recreates that pool alone.
func flattenPair(m pairModel, ref clusterscope.Ref, onDemand, flex *containerpb.NodePool, identity bool) {
	st := m.pair()
	st.Project, st.Location = types.StringValue(ref.Project), types.StringValue(ref.Location)
	st.OnDemand = flattenNodePool(onDemandRole, onDemand, m.liveLabels(onDemand))
	st.FlexStart = flattenNodePool(flexStartRole, flex, m.liveLabels(flex))
	minN, maxN, class := st.MinNodes, st.MaxNodes, st.ComputeClass
	machineType, kindFrom := st.MachineType, onDemand
	if kindFrom == nil {
		kindFrom = flex
	}
	drifted := func(was types.Int64, live int64) bool { return was.IsNull() || was.ValueInt64() != live }
	was := &poolPairModel{}
	copyNodeSettings(was, st)
	for i, np := range []*containerpb.NodePool{onDemand, flex} {
		if np == nil {
			continue
		}
		if mt := types.StringValue(np.GetConfig().GetMachineType()); !mt.Equal(st.MachineType) {
			machineType = mt
		}
		if !kindMatches(poolRoles[i], m, np) {
			kindFrom = np
		}
		lo, hi := poolBounds(np.GetAutoscaling())
		if drifted(st.MinNodes, lo) {
			minN = types.Int64Value(lo)
		}
		if drifted(st.MaxNodes, hi) {
			maxN = types.Int64Value(hi)
		}
		if live := poolClass(np); !live.Equal(st.ComputeClass) {
			class = live
		}
		flattenNodeSettings(was, st, np, identity)
	}
	st.MinNodes, st.MaxNodes, st.ComputeClass, st.MachineType = minN, maxN, class, machineType
	if kindFrom != nil {
		m.flattenKind(kindFrom)
	}
	m.derive()
}

func needsReplacement(role poolRole, have *containerpb.NodePool, want poolModel) bool {
	if have.GetName() != want.Name.ValueString() || have.GetStatus() == containerpb.NodePool_ERROR {
		return true
	}
	if role.flex {
		// GKE's update sets a run limit but cannot take one away: only a new pool is without it.
		return provisioningOf(have) != want.Provisioning.ValueString() || (have.GetConfig().GetMaxRunDuration() != nil && want.MaxRunDuration.IsNull())
	}
	return reservationAffinity(have) != want.ReservationAffinity.ValueString() || reservationOf(have) != want.Reservation.ValueString()
}

// poolReplaced says whether the apply creates role's pool again to go from old (state) to p (plan): a new name, a
// pool in ERROR, or a setting GKE takes only at creation (what needsReplacement says of a live pool).
func poolReplaced(role poolRole, old, p poolModel) bool {
	switch {
	case !old.Name.Equal(p.Name) || old.Status.ValueString() == "ERROR":
		return true
	case role.flex:
		// A run limit not known yet may turn out unset: plan for the replacement.
		return !old.Provisioning.Equal(p.Provisioning) || (!old.MaxRunDuration.IsNull() && (p.MaxRunDuration.IsNull() || p.MaxRunDuration.IsUnknown()))
	default:
		return !old.ReservationAffinity.Equal(p.ReservationAffinity) || !old.Reservation.Equal(p.Reservation)
	}
}

// incompatible says why an existing pool cannot stand in for the one this resource would create, or "".
func incompatible(role poolRole, m pairModel, have, want *containerpb.NodePool) string {
	switch {
	case have.GetConfig().GetMachineType() != want.GetConfig().GetMachineType():
		return fmt.Sprintf("has machine type %s, not %s", have.GetConfig().GetMachineType(), want.GetConfig().GetMachineType())
	case role.flex && provisioningOf(have) == "":
		return "is neither a flex-start nor a queued-provisioning pool"
	case role.flex && provisioningOf(have) != provisioningOf(want):
		return fmt.Sprintf("has provisioning %q, not %q", provisioningOf(have), provisioningOf(want))
	case !role.flex && (have.GetConfig().GetFlexStart() || have.GetQueuedProvisioning().GetEnabled()):
		return "is a flex-start or queued-provisioning pool, not an on-demand one"
	case !poolClass(have).Equal(poolClass(want)):
		return fmt.Sprintf("is in ComputeClass %s, not %s", orNoClass(poolClass(have)), orNoClass(poolClass(want)))
	case role.flex && have.GetConfig().GetMaxRunDuration() != nil && want.GetConfig().GetMaxRunDuration() == nil:
		return fmt.Sprintf("has run limit %s, which GKE cannot take away", have.GetConfig().GetMaxRunDuration().AsDuration())
	// Plan B's affinity is compared where creation sends one (none, for flex-start VMs the autoscaler adds, and for
	// GPUs): a pool left to GKE's default would consume reservations meant for others.
	case (!role.flex || want.GetConfig().GetReservationAffinity() != nil) &&
		(reservationAffinity(have) != reservationAffinity(want) || reservationOf(have) != reservationOf(want)):
		return fmt.Sprintf("has reservation affinity %s, not %s", describeAffinity(have), describeAffinity(want))
	case serviceAccountOf(have.GetConfig()) != serviceAccountOf(want.GetConfig()):
		return fmt.Sprintf("runs as service account %s, not %s", describeAccount(serviceAccountOf(have.GetConfig())), describeAccount(serviceAccountOf(want.GetConfig())))
	case !slices.Equal(sortedScopes(have.GetConfig()), sortedScopes(want.GetConfig())):
		return fmt.Sprintf("has OAuth scopes %v, not %v", sortedScopes(have.GetConfig()), sortedScopes(want.GetConfig()))
	case !slices.EqualFunc(have.GetConfig().GetSecondaryBootDisks(), want.GetConfig().GetSecondaryBootDisks(), sameBootDisk):
		return fmt.Sprintf("has secondary boot disks %s, not %s, which GKE attaches only to a new pool",
			bootDisksOf(have.GetConfig()), bootDisksOf(want.GetConfig()))
	}
	return m.incompatible(have, want)
}

// The settings below GKE takes only when it creates a pool: a pool of this name without them cannot be adopted.

func describeAffinity(np *containerpb.NodePool) string {
	if r := reservationOf(np); r != "" {
		return fmt.Sprintf("%q (reservation %s)", reservationAffinity(np), r)
	}
	return fmt.Sprintf("%q", reservationAffinity(np))
}

func describeAccount(sa string) string {
	if sa == "" {
		return "the Compute Engine default"
	}
	return sa
}

// kindMatches says whether a live pool has the kind's defining settings (TPU slice, GPUs) as the state has them.
func kindMatches(role poolRole, m pairModel, np *containerpb.NodePool) bool {
	want := &containerpb.NodePool{Config: &containerpb.NodeConfig{MachineType: m.pair().MachineType.ValueString()},
		Autoscaling: &containerpb.NodePoolAutoscaling{}, Management: &containerpb.NodeManagement{}}
	m.expandKind(role, want)
	return m.incompatible(np, want) == ""
}
