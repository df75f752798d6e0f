package poolpair

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkedrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/identity"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// Generous defaults: an accelerator node pool operation takes minutes on GKE, longer on a busy cluster.
const (
	defaultCreateTimeout = 45 * time.Minute
	defaultUpdateTimeout = 45 * time.Minute
	defaultDeleteTimeout = 45 * time.Minute
)

// poolPairResource is plan A and plan B of one accelerator: the CRUD the TPU and GPU pool pairs share. M is the kind's
// model, which embeds poolPairModel; P, its pointer type, says what the kind adds.
type poolPairResource[M any, P pairModelPtr[M]] struct {
	clients clusterscope.Clients
	kind    pairKind
}

// pairKind is what tells the pool pair resources apart besides their models.
type pairKind struct {
	name string // tpu_pool_pair
	noun string // TPU or GPU, naming the pools in messages
	// attributes are the kind's own schema attributes, besides the shared ones.
	attributes  func() map[string]schema.Attribute
	description string
	// flexAutoRepair is plan B's auto-repair when the configuration leaves it out: GKE's DWS docs turn it off for GPUs.
	flexAutoRepair bool
}

// ShortcutPlans opts the resource into the provider server's unchanged-plan shortcut: every configuration has it.
func (r *poolPairResource[M, P]) ShortcutPlans() {}

// poolPairIdentity names the object by the attributes of its id (identity.Spec).
var poolPairIdentity = identity.New("projects/{project}/locations/{location}/clusters/{cluster}/nodePools/{on_demand_pool},{flex_start_pool}", "")

func (r *poolPairResource[M, P]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.kind.name
	// The pair's identity names its two pools, and an apply that replaces one pool under a new name keeps the pair.
	resp.ResourceBehavior.MutableIdentity = true
}

func (r *poolPairResource[M, P]) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = poolPairIdentity.Schema()
}

func (r *poolPairResource[M, P]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = clusterscope.FromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (r *poolPairResource[M, P]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer poolPairIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	var plan M
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := P(&plan).pair().Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client, ref, ok := r.connect(ctx, P(&plan).pair(), &resp.Diagnostics)
	if !ok {
		return
	}
	// State is written as each pool comes into being, so that a failure part-way leaves state that names everything
	// created and a later apply can finish the job.
	st := plan
	P(&st).pair().Drift = tfdrift.List(nil)
	for _, role := range poolRoles {
		role.set(P(&st).pair(), types.ObjectNull(role.attrTypes()))
	}
	// A disk type the plan could not know (its machine type was unknown then) is GKE's default for the machine type.
	if st := P(&st).pair(); st.DiskType.IsUnknown() {
		st.DiskType = orNull(catalog.DefaultDiskType(st.MachineType.ValueString()))
	}
	// Zones left to GKE are read from the pools as each is made; until then, none (an unknown cannot be kept in state).
	if st := P(&st).pair(); st.NodeLocations.IsUnknown() {
		st.NodeLocations = types.SetNull(types.StringType)
	}
	for _, role := range poolRoles {
		p, _ := role.decodePool(role.get(P(&plan).pair()))
		np, asIs, err := r.createPool(ctx, client, ref, role, p, P(&plan), func(created *containerpb.NodePool) {
			role.set(P(&st).pair(), flattenNodePool(role, created, P(&st).liveLabels(created)))
			resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
		}, &resp.Diagnostics)
		if err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("creating %s node pool (%s)", r.kind.noun, p.Name.ValueString()), withTimeoutAdvice(err, "create", timeout))
			return
		}
		// Each pool is read back as it finishes, so state is complete without listing the pools again.
		live := flattenNodePool(role, np, P(&st).liveLabels(np))
		if asIs {
			// State says what was planned (any other answer would be an error, and taint the pair); the next
			// refresh compares the pool with it and plans what is still to set.
			live = plannedOr(role.get(P(&plan).pair()), live)
		}
		role.set(P(&st).pair(), live)
		if P(&plan).pair().NodeLocations.IsUnknown() {
			P(&st).pair().NodeLocations = zonesValue(np.GetLocations())
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
		for _, name := range slicePoolNames(p.Name.ValueString(), P(&plan).slices())[1:] {
			if _, err := r.createSlicePool(ctx, client, ref, role, p, P(&plan), name, &resp.Diagnostics); err != nil {
				resp.Diagnostics.AddError(fmt.Sprintf("creating %s node pool (%s)", r.kind.noun, name), withTimeoutAdvice(err, "create", timeout))
				return
			}
		}
	}
	// The baselines hold the zones GKE chose, so that a pool moved by hand shows.
	P(&plan).pair().NodeLocations = P(&st).pair().NodeLocations
	recordPoolBaselines(ctx, resp.Private, P(&plan), &resp.Diagnostics)
}

func (r *poolPairResource[M, P]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	// Set first: a Read that finds the object gone must still name it.
	poolPairIdentity.FromState(&req.State, resp.Identity, &resp.Diagnostics)
	var st M
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref, onDemand, flex, err := splitPoolPairID(P(&st).pair().ID.ValueString())
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading %s pool pair", r.kind.noun), err.Error())
		return
	}
	client, err := r.clients.GKE(ctx)
	if err != nil {
		resp.Diagnostics.AddError("connecting to GKE", err.Error())
		return
	}
	pools, err := gke.ListPools(ctx, client, ref.String())
	if gke.IsNotFound(err) {
		resp.Diagnostics.AddWarning("Cluster not found", fmt.Sprintf("Cluster %s no longer exists; removing node pools %s and %s from state.", ref, onDemand, flex))
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading node pools of cluster (%s)", ref), err.Error())
		return
	}
	if pools[onDemand] == nil && pools[flex] == nil {
		tflog.Warn(ctx, "both node pools are gone; removing them from state", map[string]any{"cluster": ref.String()})
		resp.State.RemoveResource(ctx)
		return
	}
	baselines := readPoolBaselines(ctx, req.Private, &resp.Diagnostics)
	identity := P(&st).pair().MachineType.IsNull() || len(baselines) == 0
	// A pool with no baseline (imported, or applied by 0.1.x) is compared with what its state says the apply made,
	// and, once state is read from the pools (an import), with what an apply of that would make.
	missing := recordMissing(baselines, P(&st), pools, onDemand, flex)
	P(&st).setSlices(pairSlices(pools, onDemand, flex))
	flattenPair(P(&st), ref, pools[onDemand], pools[flex], identity)
	missing = recordMissing(baselines, P(&st), pools, onDemand, flex) || missing
	live := []*containerpb.NodePool{pools[onDemand], pools[flex]}
	for _, name := range append(sliceMembers(pools, onDemand), sliceMembers(pools, flex)...) {
		live = append(live, pools[name])
	}
	missing = recordZones(baselines, live...) || missing
	if missing {
		writePoolBaselines(ctx, resp.Private, baselines, &resp.Diagnostics)
	}
	P(&st).pair().Drift = tfdrift.List(gkedrift.Pools(baselines, live...))
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

// recordMissing fills in the baseline of each pool of the pair that has none from m, and says whether it did:
// each plan's first pool where state names it as the id does, and the further slices' pools the cluster has.
func recordMissing(baselines map[string]*containerpb.NodePool, m pairModel, pools map[string]*containerpb.NodePool, names ...string) bool {
	added := false
	for i, role := range poolRoles {
		for k, want := range wantedPools(role, m) {
			name := want.GetName()
			if baselines[name] != nil || (k == 0 && name != names[i]) || (k > 0 && pools[name] == nil) {
				continue
			}
			baselines[name], added = want, true
		}
	}
	return added
}

// pairSlices is how many slices both plans have now: the fewer of the two, 1 when neither has its first pool.
func pairSlices(pools map[string]*containerpb.NodePool, onDemand, flex string) int64 {
	n := int64(0)
	for _, base := range []string{onDemand, flex} {
		if k := liveSlices(pools, base); k > 0 && (n == 0 || k < n) {
			n = k
		}
	}
	return max(n, 1)
}

// recordPoolBaselines keeps, for Read to compare with, what the apply made of each pool of the plan.
func recordPoolBaselines(ctx context.Context, p tfvalue.PrivateState, m pairModel, diags *diag.Diagnostics) {
	baselines := map[string]*containerpb.NodePool{}
	for _, role := range poolRoles {
		for _, want := range wantedPools(role, m) {
			baselines[want.GetName()] = want
		}
	}
	writePoolBaselines(ctx, p, baselines, diags)
}

func (r *poolPairResource[M, P]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer poolPairIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	var planM, priorM M
	resp.Diagnostics.Append(req.Plan.Get(ctx, &planM)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &priorM)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan, prior := P(&planM).pair(), P(&priorM).pair()
	timeout, diags := plan.Timeouts.Update(ctx, defaultUpdateTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client, ref, ok := r.connect(ctx, plan, &resp.Diagnostics)
	if !ok {
		return
	}
	_, oldOnDemand, oldFlex, err := splitPoolPairID(prior.ID.ValueString())
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("updating %s pool pair", r.kind.noun), err.Error())
		return
	}
	pools, err := gke.ListPools(ctx, client, ref.String())
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading node pools of cluster (%s)", ref), err.Error())
		return
	}
	// st follows reality step by step, so that an error part-way leaves state a later apply can finish from. The
	// kind's own attributes come from the plan: what they can change replaces the pair, so they are what it holds.
	stM := planM
	st := P(&stM).pair()
	*st = *prior
	st.Timeouts, st.Cluster = plan.Timeouts, plan.Cluster
	names := map[poolRole]string{onDemandRole: oldOnDemand, flexStartRole: oldFlex}
	oldBase := maps.Clone(names) // names follows the replacements below
	if plan.NodeLocations.IsUnknown() {
		// Left out, and a pool moved by hand: back to the zones the pools were made in.
		plan.NodeLocations = zonesMadeIn(readPoolBaselines(ctx, req.Private, &resp.Diagnostics), oldOnDemand, oldFlex)
	}
	_, planned := gkedrift.ByPool(tfvalue.StringList(prior.Drift))
	// From the first change on, Read compares the pools with what this apply makes of them, even if it fails
	// part-way: what it did not reach yet then shows as drift, and the next apply finishes it.
	defer recordPoolBaselines(ctx, resp.Private, P(&planM), &resp.Diagnostics)
	save := func() {
		st.ID = types.StringValue(poolPairID(ref, names[onDemandRole], names[flexStartRole]))
		resp.Diagnostics.Append(resp.State.Set(ctx, &stM)...)
	}
	for _, role := range poolRoles {
		want, _ := role.decodePool(role.get(plan))
		have := pools[names[role]]
		// A field changed by hand that GKE sets only on a new pool (drift) recreates that pool, as a name does.
		if have != nil && !needsReplacement(role, have, want) && len(gkedrift.Recreated(gkedrift.Made(expandNodePool(role, want, P(&planM))), have, planned)) == 0 {
			continue
		}
		if have != nil {
			if err := gke.DeletePool(ctx, client, ref.String(), have.GetName()); err != nil {
				resp.Diagnostics.AddError(fmt.Sprintf("deleting %s node pool (%s) to replace it", r.kind.noun, have.GetName()), err.Error())
				return
			}
		}
		names[role] = want.Name.ValueString()
		role.set(st, types.ObjectNull(role.attrTypes()))
		save()
		// An adopted pool left as it is gets what still differs from the repair below.
		np, _, err := r.createPool(ctx, client, ref, role, want, P(&planM), func(created *containerpb.NodePool) {
			role.set(st, flattenNodePool(role, created, P(&stM).liveLabels(created)))
			save()
		}, &resp.Diagnostics)
		if err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("creating %s node pool (%s)", r.kind.noun, want.Name.ValueString()), withTimeoutAdvice(err, "update", timeout))
			return
		}
		pools[np.GetName()] = np
	}
	for _, role := range poolRoles {
		want, _ := role.decodePool(role.get(plan))
		if err := r.updateSlicePools(ctx, client, ref, role, want, oldBase[role], pools, planned, P(&planM), &resp.Diagnostics); err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("updating the slices of %s node pool (%s)", r.kind.noun, want.Name.ValueString()), err.Error())
			return
		}
	}
	for _, role := range poolRoles {
		for _, np := range planPools(pools, names[role], P(&planM).slices()) {
			if lo, hi := poolBounds(np.GetAutoscaling()); np.GetAutoscaling().GetEnabled() && lo == plan.MinNodes.ValueInt64() && hi == plan.MaxNodes.ValueInt64() {
				continue
			}
			want, _ := role.decodePool(role.get(plan))
			err := client.Mutate(ctx, ref.String(), func(ctx context.Context) (*containerpb.Operation, error) {
				return client.API().SetNodePoolAutoscaling(ctx, &containerpb.SetNodePoolAutoscalingRequest{
					Name:        ref.String() + "/nodePools/" + np.GetName(),
					Autoscaling: expandNodePool(role, want, P(&planM)).GetAutoscaling(),
				})
			}, nil)
			if err != nil {
				resp.Diagnostics.AddError(fmt.Sprintf("updating autoscaling of %s node pool (%s)", r.kind.noun, np.GetName()), err.Error())
				return
			}
		}
	}
	st.MinNodes, st.MaxNodes = plan.MinNodes, plan.MaxNodes
	for _, role := range poolRoles {
		for _, np := range planPools(pools, names[role], P(&planM).slices()) {
			labels, taints, changed := classSettings(np, plan.ComputeClass.ValueString())
			if !changed {
				continue
			}
			err := client.Mutate(ctx, ref.String(), func(ctx context.Context) (*containerpb.Operation, error) {
				return client.API().UpdateNodePool(ctx, &containerpb.UpdateNodePoolRequest{
					Name:   ref.String() + "/nodePools/" + np.GetName(),
					Labels: &containerpb.NodeLabels{Labels: labels},
					Taints: &containerpb.NodeTaints{Taints: taints},
				})
			}, nil)
			if err != nil {
				resp.Diagnostics.AddError(fmt.Sprintf("updating the ComputeClass of %s node pool (%s)", r.kind.noun, np.GetName()), err.Error())
				return
			}
		}
	}
	st.ComputeClass = plan.ComputeClass
	// Read back against what this apply set, so that an empty list or map stays as the configuration writes it.
	copyNodeSettings(st, plan)
	if err := repairInPlace(ctx, client, ref, P(&planM)); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("updating %s node pools in place", r.kind.noun), err.Error())
		return
	}
	r.refresh(ctx, client, ref, P(&stM), &resp.Diagnostics)
	st.Drift = tfdrift.List(nil)
	save()
}

func (r *poolPairResource[M, P]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var stM M
	resp.Diagnostics.Append(req.State.Get(ctx, &stM)...)
	if resp.Diagnostics.HasError() {
		return
	}
	st := P(&stM).pair()
	timeout, diags := st.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ref, onDemand, flex, err := splitPoolPairID(st.ID.ValueString())
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting %s pool pair", r.kind.noun), err.Error())
		return
	}
	client, err := r.clients.GKE(ctx)
	if err != nil {
		resp.Diagnostics.AddError("connecting to GKE", err.Error())
		return
	}
	pools, err := gke.ListPools(ctx, client, ref.String())
	if err != nil && !gke.IsNotFound(err) {
		resp.Diagnostics.AddError(fmt.Sprintf("reading node pools of cluster (%s)", ref), err.Error())
		return
	}
	// Plan B first: while it exists, jobs could still fall back onto it. A plan's further slices go before its first
	// pool, which state names.
	for _, p := range []struct {
		role poolRole
		name string
	}{{flexStartRole, flex}, {onDemandRole, onDemand}} {
		for _, name := range append(sliceMembers(pools, p.name), p.name) {
			if err := gke.DeletePool(ctx, client, ref.String(), name); err != nil && !gke.IsNotFound(err) {
				resp.Diagnostics.AddError(fmt.Sprintf("deleting %s node pool (%s)", r.kind.noun, name), err.Error())
				return
			}
		}
		p.role.set(st, types.ObjectNull(p.role.attrTypes()))
		resp.Diagnostics.Append(resp.State.Set(ctx, &stM)...)
	}
}

func (r *poolPairResource[M, P]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importID, diags := poolPairIdentity.ImportID(ctx, req)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	defer poolPairIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	ref, onDemand, flex, err := splitPoolPairID(importID)
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("importing %s pool pair", r.kind.noun), err.Error())
		return
	}
	// The bare cluster name is what configurations usually say; Read fills in everything else from GKE.
	var stM M
	*P(&stM).pair() = poolPairModel{
		ID:           types.StringValue(poolPairID(ref, onDemand, flex)),
		Cluster:      types.StringValue(ref.Name),
		Project:      types.StringValue(ref.Project),
		Location:     types.StringValue(ref.Location),
		MachineType:  types.StringNull(),
		MinNodes:     types.Int64Null(),
		MaxNodes:     types.Int64Null(),
		ComputeClass: types.StringNull(),
		// Read fills in the node settings from the pools.
		ServiceAccount:     types.StringNull(),
		OauthScopes:        types.SetNull(types.StringType),
		ResourceLabels:     types.MapNull(types.StringType),
		NetworkTags:        types.ListNull(types.StringType),
		Labels:             types.MapNull(types.StringType),
		Taints:             types.ListNull(taintType),
		DiskType:           types.StringNull(),
		DiskSizeGB:         types.Int64Null(),
		Gvnic:              types.BoolNull(),
		NodeLocations:      types.SetNull(types.StringType),
		SecondaryBootDisks: types.ListNull(bootDiskType),
		OnDemand:           types.ObjectNull(onDemandRole.attrTypes()),
		FlexStart:          types.ObjectNull(flexStartRole.attrTypes()),
		Drift:              types.ListNull(types.StringType),
		Timeouts:           tfvalue.TimeoutsNull(),
	}
	if k, ok := any(P(&stM)).(kindImporter); ok {
		k.importNulls()
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &stM)...)
}

func (r *poolPairResource[M, P]) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var mM M
	resp.Diagnostics.Append(req.Config.Get(ctx, &mM)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m := P(&mM).pair()
	if tfvalue.Known(m.MinNodes) && tfvalue.Known(m.MaxNodes) && m.MinNodes.ValueInt64() > m.MaxNodes.ValueInt64() {
		resp.Diagnostics.AddAttributeError(path.Root("min_nodes"), "min_nodes is greater than max_nodes",
			fmt.Sprintf("min_nodes (%d) must not exceed max_nodes (%d).", m.MinNodes.ValueInt64(), m.MaxNodes.ValueInt64()))
	}
	od, odOK := onDemandRole.decodePool(m.OnDemand)
	fx, fxOK := flexStartRole.decodePool(m.FlexStart)
	if odOK && fxOK && tfvalue.Known(od.Name) && od.Name.Equal(fx.Name) {
		resp.Diagnostics.AddAttributeError(path.Root("flex_start").AtName("name"), "Both pools have the same name",
			fmt.Sprintf("on_demand and flex_start are two node pools and need different names; both are %q.", od.Name.ValueString()))
	}
	if fxOK && tfvalue.Known(m.ComputeClass) && !fx.Provisioning.IsUnknown() && fx.Provisioning.ValueString() != provisioningUnqueued {
		mode := strconv.Quote(fx.Provisioning.ValueString())
		if fx.Provisioning.ValueString() == "" {
			mode = strconv.Quote(provisioningFlexStart) + " (the default)"
		}
		resp.Diagnostics.AddAttributeError(path.Root("compute_class"), "A queued-provisioning pool cannot serve a ComputeClass",
			fmt.Sprintf("compute_class puts both pools in ComputeClass %q, but flex_start.provisioning is %s: the cluster autoscaler "+
				"grows a queued-provisioning pool only for a ProvisioningRequest, never for a class's pods, and the class's taint would "+
				"keep the ProvisioningRequest's pods off it. Set flex_start.provisioning = %q, or leave compute_class out and fall back "+
				"through Kueue's flavors.", m.ComputeClass.ValueString(), mode, provisioningUnqueued))
	}
	validatePoolSettings(od, odOK, fx, fxOK, &resp.Diagnostics)
	validateNodeSettings(m, &resp.Diagnostics)
	P(&mM).validate(&resp.Diagnostics)
}

// ModifyPlan fills in at plan time what the configuration already determines (project, location, the accelerator's
// facts, node labels, the id), so that Kueue and RayJob resources can use them in the same plan, and marks what a pool
// replacement will change.
func (r *poolPairResource[M, P]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	clusterscope.Plan(ctx, r.clients, req, resp, "", "")
	var planM M
	resp.Diagnostics.Append(resp.Plan.Get(ctx, &planM)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan := P(&planM).pair()
	var prior *poolPairModel
	priorSlices := int64(1)
	if !req.State.Raw.IsNull() {
		var priorM M
		resp.Diagnostics.Append(req.State.Get(ctx, &priorM)...)
		prior, priorSlices = P(&priorM).pair(), P(&priorM).slices()
	}
	P(&planM).derive()
	planDiskType(ctx, req.Config, plan, prior, &resp.Diagnostics)
	var zones types.Set
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("node_locations"), &zones)...)
	planZones(zones, plan, prior)
	// New pools without zones of their own go in the cluster's; an existing pair's pools keep the zones they were made
	// in, even when its state predates node_locations or a pool was moved by hand. A replacement is planned again
	// with no prior state, so prior == nil covers every new pool (another cluster, location or machine type), and a
	// cluster respelled as its id is not one.
	newPools := prior == nil
	if newPools || !plan.NodeLocations.Equal(prior.NodeLocations) || !plan.Location.Equal(prior.Location) || !plan.MachineType.Equal(prior.MachineType) {
		// Only where the zones or the machine type change: a pair already made stays plannable, whatever the catalog says.
		validateZones(plan, zones, newPools, &resp.Diagnostics)
	}
	if unit := P(&planM).reservationUnit(); unit > 0 && tfvalue.Known(plan.MaxNodes) && reservationPlanned(plan, prior, P(&planM).slices(), priorSlices) &&
		!plan.Cluster.IsUnknown() && !plan.Project.IsUnknown() && !plan.Location.IsUnknown() {
		if ref, err := clusterscope.Resolve(plan.Cluster.ValueString(), plan.Project.ValueString(), plan.Location.ValueString(), r.clients); err == nil {
			if t, ok := targetOf(plan, ref); ok {
				planReservation(ctx, r.clients, t, reservationNeed{machineType: plan.MachineType.ValueString(), unit: unit,
					most: plan.MaxNodes.ValueInt64() * P(&planM).slices()}, &resp.Diagnostics)
			}
		}
	}
	// Drift is repaired by the apply, and is empty after it.
	plan.Drift = tfdrift.List(nil)
	changed := prior != nil && (!tfvalue.PlanEqualsState(req.Plan, req.State) || len(prior.Drift.Elements()) > 0 || !plan.DiskType.Equal(prior.DiskType))
	replacedPools := map[string]bool{}
	// A pool object not known yet (a module variable) leaves its name, and so the id, unknown.
	names := [2]types.String{types.StringUnknown(), types.StringUnknown()}
	for i, role := range poolRoles {
		p, ok := role.decodePool(role.get(plan))
		if !ok {
			continue
		}
		names[i] = p.Name
		p.NodeLabels = P(&planM).labels(p.Name)
		var old poolModel
		var had bool
		if prior != nil {
			old, had = role.decodePool(role.get(prior))
		}
		replaced := prior != nil && (!had || poolReplaced(role, old, p))
		switch {
		case prior == nil || replaced:
			p.Status = types.StringUnknown()
			if role.flex {
				p.FlexStartEnabled, p.QueuedProvisioning = types.BoolUnknown(), types.BoolUnknown()
			}
			if had {
				replacedPools[old.Name.ValueString()] = true
				resp.Diagnostics.AddWarning(fmt.Sprintf("Node pool %s will be replaced", old.Name.ValueString()),
					fmt.Sprintf("The %s pool %s will be deleted and created again as %s; the other pool is kept.", role.attr, old.Name.ValueString(), p.Name.ValueString()))
			}
		case changed:
			// An in-place update may move the pool through RECONCILING; what only a replacement changes stays known.
			p.Status = types.StringUnknown()
			if role.flex {
				p.FlexStartEnabled, p.QueuedProvisioning = old.FlexStartEnabled, old.QueuedProvisioning
			}
		default:
			p.Status = old.Status
			if role.flex {
				p.FlexStartEnabled, p.QueuedProvisioning = old.FlexStartEnabled, old.QueuedProvisioning
			}
		}
		role.set(plan, role.encodePool(p))
	}
	if prior != nil {
		warnRecreated(prior.Drift, replacedPools, &resp.Diagnostics)
		warnFewerSlices(prior, plan, priorSlices, P(&planM), &resp.Diagnostics)
	}
	if !plan.Cluster.IsUnknown() && !plan.Project.IsUnknown() && !plan.Location.IsUnknown() && !names[0].IsUnknown() && !names[1].IsUnknown() {
		ref, _ := clusterscope.Resolve(plan.Cluster.ValueString(), plan.Project.ValueString(), plan.Location.ValueString(), r.clients)
		plan.ID = types.StringValue(poolPairID(ref, names[0].ValueString(), names[1].ValueString()))
		if prior != nil && !plan.ID.Equal(prior.ID) {
			// A pool replaced under a new name: the plan says the identity the apply will give the pair.
			resp.Diagnostics.Append(poolPairIdentity.Set(resp.Identity, plan.ID.ValueString())...)
		}
	} else {
		plan.ID = types.StringUnknown()
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &planM)...)
}

// warnRecreated says which pool the apply deletes and creates again to repair its drift, and why; pools the plan
// replaces anyway (already warned about) are left out.
func warnRecreated(drift types.List, replaced map[string]bool, diags *diag.Diagnostics) {
	pools, fields := gkedrift.ByPool(tfvalue.StringList(drift))
	for _, pool := range pools {
		var recreate []string
		for _, f := range fields[pool] {
			if !gkedrift.InPlace(f) {
				recreate = append(recreate, f)
			}
		}
		if len(recreate) == 0 || replaced[pool] {
			continue
		}
		diags.AddWarning(fmt.Sprintf("Node pool %s will be replaced", pool), fmt.Sprintf("Node pool %s differs from what the provider made in %s, "+
			"which GKE sets only on a new pool: the apply deletes it and creates it again, and its nodes go with it.",
			pool, strings.Join(recreate, ", ")))
	}
}
