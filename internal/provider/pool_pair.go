package provider

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
)

var (
	_ resource.ResourceWithConfigure      = (*tpuPoolPairResource)(nil)
	_ resource.ResourceWithImportState    = (*tpuPoolPairResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*tpuPoolPairResource)(nil)
	_ resource.ResourceWithValidateConfig = (*tpuPoolPairResource)(nil)
)

// Generous defaults: a TPU node pool operation takes minutes on GKE, longer on a busy cluster.
const (
	defaultCreateTimeout = 45 * time.Minute
	defaultUpdateTimeout = 45 * time.Minute
	defaultDeleteTimeout = 45 * time.Minute
)

func NewTPUPoolPairResource() resource.Resource { return &tpuPoolPairResource{} }

type tpuPoolPairResource struct {
	clients clients
}

func (r *tpuPoolPairResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tpu_pool_pair"
}

func (r *tpuPoolPairResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = providerClients(req.ProviderData, &resp.Diagnostics)
}

func (r *tpuPoolPairResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan tpuPoolPairModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client, ref, ok := r.connect(ctx, &plan, &resp.Diagnostics)
	if !ok {
		return
	}
	// State is written as each pool comes into being, so that a failure part-way leaves state that names everything
	// created and a later apply can finish the job.
	st := plan
	for _, role := range poolRoles {
		role.set(&st, types.ObjectNull(role.attrTypes()))
	}
	for _, role := range poolRoles {
		p, _ := role.decodePool(role.get(&plan))
		np, err := r.createPool(ctx, client, ref, role, p, &plan, func(created *containerpb.NodePool) {
			role.set(&st, flattenNodePool(role, created))
			resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
		})
		if err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("creating TPU node pool (%s)", p.Name.ValueString()), err.Error())
			return
		}
		// Each pool is read back as it finishes, so state is complete without listing the pools again.
		role.set(&st, flattenNodePool(role, np))
		resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
	}
}

func (r *tpuPoolPairResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var st tpuPoolPairModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref, onDemand, flex, err := splitPoolPairID(st.ID.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("reading TPU pool pair", err.Error())
		return
	}
	client, err := r.clients.GKE(ctx)
	if err != nil {
		resp.Diagnostics.AddError("connecting to GKE", err.Error())
		return
	}
	pools, err := listPools(ctx, client, ref)
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
	flattenPair(&st, ref, pools[onDemand], pools[flex])
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

func (r *tpuPoolPairResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior tpuPoolPairModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, defaultUpdateTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client, ref, ok := r.connect(ctx, &plan, &resp.Diagnostics)
	if !ok {
		return
	}
	_, oldOnDemand, oldFlex, err := splitPoolPairID(prior.ID.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("updating TPU pool pair", err.Error())
		return
	}
	pools, err := listPools(ctx, client, ref)
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading node pools of cluster (%s)", ref), err.Error())
		return
	}
	// st follows reality step by step, so that an error part-way leaves state a later apply can finish from.
	st := prior
	st.Timeouts, st.Cluster = plan.Timeouts, plan.Cluster
	names := map[poolRole]string{onDemandRole: oldOnDemand, flexStartRole: oldFlex}
	save := func() {
		st.ID = types.StringValue(poolPairID(ref, names[onDemandRole], names[flexStartRole]))
		resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
	}
	for _, role := range poolRoles {
		want, _ := role.decodePool(role.get(&plan))
		have := pools[names[role]]
		if have != nil && !needsReplacement(role, have, want) {
			continue
		}
		if have != nil {
			if err := deletePool(ctx, client, ref, have.GetName()); err != nil {
				resp.Diagnostics.AddError(fmt.Sprintf("deleting TPU node pool (%s) to replace it", have.GetName()), err.Error())
				return
			}
		}
		names[role] = want.Name.ValueString()
		role.set(&st, types.ObjectNull(role.attrTypes()))
		save()
		np, err := r.createPool(ctx, client, ref, role, want, &plan, func(created *containerpb.NodePool) {
			role.set(&st, flattenNodePool(role, created))
			save()
		})
		if err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("creating TPU node pool (%s)", want.Name.ValueString()), err.Error())
			return
		}
		pools[np.GetName()] = np
	}
	for _, role := range poolRoles {
		np := pools[names[role]]
		as := np.GetAutoscaling()
		if as.GetEnabled() && int64(as.GetMinNodeCount()) == plan.MinNodes.ValueInt64() && int64(as.GetMaxNodeCount()) == plan.MaxNodes.ValueInt64() {
			continue
		}
		err := client.Mutate(ctx, ref.String(), func(ctx context.Context) (*containerpb.Operation, error) {
			return client.API().SetNodePoolAutoscaling(ctx, &containerpb.SetNodePoolAutoscalingRequest{
				Name: ref.String() + "/nodePools/" + np.GetName(),
				Autoscaling: &containerpb.NodePoolAutoscaling{
					Enabled:      true,
					MinNodeCount: int32(plan.MinNodes.ValueInt64()),
					MaxNodeCount: int32(plan.MaxNodes.ValueInt64()),
				},
			})
		}, nil)
		if err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("updating autoscaling of TPU node pool (%s)", np.GetName()), err.Error())
			return
		}
	}
	st.MinNodes, st.MaxNodes = plan.MinNodes, plan.MaxNodes
	r.refresh(ctx, client, ref, &st, &resp.Diagnostics)
	save()
}

func (r *tpuPoolPairResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var st tpuPoolPairModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := st.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ref, onDemand, flex, err := splitPoolPairID(st.ID.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("deleting TPU pool pair", err.Error())
		return
	}
	client, err := r.clients.GKE(ctx)
	if err != nil {
		resp.Diagnostics.AddError("connecting to GKE", err.Error())
		return
	}
	// Plan B first: while it exists, jobs could still fall back onto it.
	for _, p := range []struct {
		role poolRole
		name string
	}{{flexStartRole, flex}, {onDemandRole, onDemand}} {
		if err := deletePool(ctx, client, ref, p.name); err != nil && !gke.IsNotFound(err) {
			resp.Diagnostics.AddError(fmt.Sprintf("deleting TPU node pool (%s)", p.name), err.Error())
			return
		}
		p.role.set(&st, types.ObjectNull(p.role.attrTypes()))
		resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
	}
}

func (r *tpuPoolPairResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ref, onDemand, flex, err := splitPoolPairID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("importing TPU pool pair", err.Error())
		return
	}
	// The bare cluster name is what configurations usually say; Read fills in everything else from GKE.
	st := tpuPoolPairModel{
		ID:        types.StringValue(poolPairID(ref, onDemand, flex)),
		Cluster:   types.StringValue(ref.Name),
		Project:   types.StringValue(ref.Project),
		Location:  types.StringValue(ref.Location),
		OnDemand:  types.ObjectNull(onDemandRole.attrTypes()),
		FlexStart: types.ObjectNull(flexStartRole.attrTypes()),
		Timeouts:  timeoutsNull(),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

func (r *tpuPoolPairResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m tpuPoolPairModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var slice *catalog.Slice
	if !m.MachineType.IsNull() && !m.MachineType.IsUnknown() && !m.TPUTopology.IsNull() && !m.TPUTopology.IsUnknown() {
		if _, known := catalog.Lookup(m.MachineType.ValueString()); known {
			if _, perr := catalog.ParseTopology(m.TPUTopology.ValueString()); perr == nil {
				s, err := catalog.NewSlice(m.MachineType.ValueString(), m.TPUTopology.ValueString())
				if err != nil {
					resp.Diagnostics.AddAttributeError(path.Root("tpu_topology"), "TPU topology does not fit the machine type", err.Error())
				} else {
					slice = &s
				}
			}
		}
	}
	minKnown := !m.MinNodes.IsNull() && !m.MinNodes.IsUnknown()
	maxKnown := !m.MaxNodes.IsNull() && !m.MaxNodes.IsUnknown()
	if minKnown && maxKnown && m.MinNodes.ValueInt64() > m.MaxNodes.ValueInt64() {
		resp.Diagnostics.AddAttributeError(path.Root("min_nodes"), "min_nodes is greater than max_nodes",
			fmt.Sprintf("min_nodes (%d) must not exceed max_nodes (%d).", m.MinNodes.ValueInt64(), m.MaxNodes.ValueInt64()))
	}
	if slice != nil && slice.MultiHost() {
		n := int64(slice.NodesPerSlice)
		for _, b := range []struct {
			attr  string
			v     types.Int64
			known bool
		}{{"min_nodes", m.MinNodes, minKnown}, {"max_nodes", m.MaxNodes, maxKnown}} {
			if b.known && b.v.ValueInt64()%n != 0 {
				lower := b.v.ValueInt64() / n * n
				resp.Diagnostics.AddAttributeError(path.Root(b.attr), b.attr+" is not a whole number of TPU slices",
					fmt.Sprintf("A %s slice of %s spans %d nodes, and GKE scales multi-host slices whole, so %s must be a multiple of %d: use %d or %d instead of %d.",
						slice.Topology, slice.MachineType, n, b.attr, n, lower, lower+n, b.v.ValueInt64()))
			}
		}
	}
	od, odOK := onDemandRole.decodePool(m.OnDemand)
	fx, fxOK := flexStartRole.decodePool(m.FlexStart)
	if odOK && fxOK && !od.Name.IsUnknown() && !od.Name.IsNull() && od.Name.Equal(fx.Name) {
		resp.Diagnostics.AddAttributeError(path.Root("flex_start").AtName("name"), "Both pools have the same name",
			fmt.Sprintf("on_demand and flex_start are two node pools and need different names; both are %q.", od.Name.ValueString()))
	}
}

// ModifyPlan fills in at plan time what the configuration already determines (project, location, slice facts, node
// labels, the id), so that Kueue and RayJob resources can use them in the same plan, and marks what a pool
// replacement will change.
func (r *tpuPoolPairResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	planClusterScope(ctx, r.clients, req, resp, "", "")
	var plan tpuPoolPairModel
	resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var prior *tpuPoolPairModel
	if !req.State.Raw.IsNull() {
		prior = &tpuPoolPairModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, prior)...)
	}
	setSlice(&plan)
	changed := prior != nil && !planEqualsState(req.Plan, req.State)
	// A pool object not known yet (a module variable) leaves its name, and so the id, unknown.
	names := [2]types.String{types.StringUnknown(), types.StringUnknown()}
	for i, role := range poolRoles {
		p, ok := role.decodePool(role.get(&plan))
		if !ok {
			continue
		}
		names[i] = p.Name
		if p.Name.IsUnknown() || plan.TPUAccelerator.IsUnknown() || plan.TPUTopology.IsUnknown() {
			p.NodeLabels = types.MapUnknown(types.StringType)
		} else {
			p.NodeLabels = nodeLabels(p.Name.ValueString(), plan.TPUAccelerator.ValueString(), plan.TPUTopology.ValueString())
		}
		var old poolModel
		var had bool
		if prior != nil {
			old, had = role.decodePool(role.get(prior))
		}
		replaced := prior != nil && (!had || !old.Name.Equal(p.Name) || (!role.flex && !old.ReservationAffinity.Equal(p.ReservationAffinity)) || old.Status.ValueString() == "ERROR")
		switch {
		case prior == nil || replaced:
			p.Status = types.StringUnknown()
			if role.flex {
				p.FlexStartEnabled, p.QueuedProvisioning = types.BoolUnknown(), types.BoolUnknown()
			}
			if had {
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
		role.set(&plan, role.encodePool(p))
	}
	if !plan.Cluster.IsUnknown() && !plan.Project.IsUnknown() && !plan.Location.IsUnknown() && !names[0].IsUnknown() && !names[1].IsUnknown() {
		ref, _ := resolveCluster(plan.Cluster.ValueString(), plan.Project.ValueString(), plan.Location.ValueString(), r.clients)
		plan.ID = types.StringValue(poolPairID(ref, names[0].ValueString(), names[1].ValueString()))
	} else {
		plan.ID = types.StringUnknown()
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}
