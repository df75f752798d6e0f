package kueuequeue

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/drift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/identity"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kueueuse"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

var (
	_ resource.ResourceWithConfigure      = (*kueueQueueResource)(nil)
	_ resource.ResourceWithImportState    = (*kueueQueueResource)(nil)
	_ resource.ResourceWithIdentity       = (*kueueQueueResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*kueueQueueResource)(nil)
	_ resource.ResourceWithValidateConfig = (*kueueQueueResource)(nil)
)

// Kueue objects become Active in seconds; the wait is bounded anyway by the timeouts block.
const defaultKueueTimeout = 10 * time.Minute

// privateDiscover marks a freshly imported queue, whose LocalQueues Read must discover.
const privateDiscover = "discover_local_queues"

// New is the dwsfallback_kueue_queue resource.
func New() resource.Resource { return &kueueQueueResource{} }

type kueueQueueResource struct {
	clients clusterscope.Clients
}

// ShortcutPlans opts the resource into the provider server's unchanged-plan shortcut: every configuration has it.
func (r *kueueQueueResource) ShortcutPlans() {}

// kueueQueueIdentity names the object by the attributes of its id (identity.Spec).
var kueueQueueIdentity = identity.New("projects/{project}/locations/{location}/clusters/{cluster}/clusterQueues/{name}", "{name}")

func (r *kueueQueueResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_kueue_queue"
}

func (r *kueueQueueResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = kueueQueueIdentity.Schema()
}

func (r *kueueQueueResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = clusterscope.FromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (r *kueueQueueResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer kueueQueueIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	var plan kueueQueueModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultKueueTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, ok := r.kube(ctx, &plan, &resp.Diagnostics)
	if !ok {
		return
	}
	// Recorded before anything is written: if an apply fails part-way, state names every object, so destroy or the
	// next apply accounts for all of them. State may hold no unknown value, so the status starts as "not yet".
	plan.Active, plan.ActiveMessage = types.BoolValue(false), types.StringValue("")
	plan.PendingWorkloads, plan.AdmittedWorkloads = types.Int64Value(0), types.Int64Value(0)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	recordObjects(ctx, resp.Private, plan.objectNames(), &resp.Diagnostics)
	if wrote, err := applyQueueObjects(ctx, c, &plan, nil); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("creating Kueue queue (%s)", plan.Name.ValueString()), err.Error())
		if !wrote {
			resp.State.RemoveResource(ctx)
		}
		return
	}
	recordSpecs(ctx, resp.Private, &plan, &resp.Diagnostics)
	recordQueueBaselines(ctx, c, &plan, resp.Private, &resp.Diagnostics)
	r.settle(ctx, c, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *kueueQueueResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	// Set first: a Read that finds the object gone must still name it.
	kueueQueueIdentity.FromState(&req.State, resp.Identity, &resp.Diagnostics)
	var st kueueQueueModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := clusterscope.KubeForRead(ctx, r.clients, st.Cluster, st.Project, st.Location, resp)
	if !ok {
		return
	}
	discover, diags := req.Private.GetKey(ctx, privateDiscover)
	resp.Diagnostics.Append(diags...)
	o, err := findQueue(ctx, c, &st, len(discover) > 0)
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading Kueue queue (%s)", st.Name.ValueString()), err.Error())
		return
	}
	if o.cq == nil {
		applied := st.objectNames().union(appliedObjects(ctx, req.Private, &resp.Diagnostics))
		left, err := remainingObjects(ctx, c, applied)
		if err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("reading Kueue queue (%s)", st.Name.ValueString()), err.Error())
			return
		}
		if len(left) == 0 {
			resp.Diagnostics.AddWarning("ClusterQueue not found", fmt.Sprintf("ClusterQueue %s no longer exists on %s; it will be created again with its flavors, checks and local queues.", st.Name.ValueString(), c.Host))
			resp.State.RemoveResource(ctx)
			return
		}
		// Half a queue (an interrupted destroy, or a ClusterQueue deleted by hand): the resource stays, so that a
		// destroy still removes what is left and an apply makes the ClusterQueue again.
		resp.Diagnostics.AddWarning("ClusterQueue not found", fmt.Sprintf("ClusterQueue %s no longer exists on %s, but %s still do; "+
			"an apply makes the ClusterQueue again, a destroy removes the rest.", st.Name.ValueString(), c.Host, strings.Join(left, ", ")))
		st.Flavors, st.LocalQueues = nil, nil
		resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
		return
	}
	for _, t := range o.terminating {
		resp.Diagnostics.AddWarning("Kueue object being deleted", fmt.Sprintf("%s on %s is being deleted, and Kueue keeps it (its "+
			"resource-in-use finalizer) while ClusterQueue %s refers to it. The plan shows it as missing; an apply takes it out of the "+
			"ClusterQueue until it is gone, then makes it again.", t, c.Host, st.Name.ValueString()))
	}
	prior := st
	if len(discover) > 0 {
		prior.LocalQueues = nil
	}
	flattenQueue(&st, o, &prior)
	d, err := queueDrift(c, tfdrift.Read(ctx, req.Private, &resp.Diagnostics), o)
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading Kueue queue (%s)", st.Name.ValueString()), err.Error())
		return
	}
	st.Drift = tfdrift.List(d)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
	if len(discover) > 0 {
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateDiscover, nil)...)
	}
}

func (r *kueueQueueResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer kueueQueueIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	var plan, prior kueueQueueModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, defaultKueueTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, ok := r.kube(ctx, &plan, &resp.Diagnostics)
	if !ok {
		return
	}
	before := prior.objectNames().union(appliedObjects(ctx, req.Private, &resp.Diagnostics))
	recordObjects(ctx, resp.Private, before.union(plan.objectNames()), &resp.Diagnostics)
	mine := appliedSpecs(ctx, req.Private, &resp.Diagnostics)
	if mine == nil {
		mine = specMap(declaredSpecs(&prior)) // a state from before the record: the refreshed state is the best guess
	}
	if _, err := applyQueueObjects(ctx, c, &plan, mine); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("updating Kueue queue (%s)", plan.Name.ValueString()), err.Error())
		return
	}
	// What the configuration no longer names goes, after the ClusterQueue stopped referring to it, unless another
	// ClusterQueue uses it.
	u, err := kueueuse.FindUsers(ctx, c, plan.Name.ValueString())
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("updating Kueue queue (%s)", plan.Name.ValueString()), err.Error())
		return
	}
	removed, _ := withoutShared(removedObjects(before, &plan), u)
	if err := deleteQueueObjects(ctx, c, removed); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("updating Kueue queue (%s): removing objects no longer configured", plan.Name.ValueString()), err.Error())
		return
	}
	recordSpecs(ctx, resp.Private, &plan, &resp.Diagnostics)
	recordObjects(ctx, resp.Private, plan.objectNames(), &resp.Diagnostics)
	recordQueueBaselines(ctx, c, &plan, resp.Private, &resp.Diagnostics)
	r.settle(ctx, c, &plan, &resp.Diagnostics)
	// The plan promised the last refresh's counters (keepQueueStatus); the next refresh brings new ones.
	plan.PendingWorkloads, plan.AdmittedWorkloads = prior.PendingWorkloads, prior.AdmittedWorkloads
	if prior.Active.ValueBool() && plan.Active.ValueBool() {
		plan.ActiveMessage = prior.ActiveMessage
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// keepQueueStatus plans an update with the status of the last refresh: the counters as they were, and an Active
// queue as Active (an update waits until it is again), so that a quota change does not show four attributes as
// known after apply.
func keepQueueStatus(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	for _, a := range []string{"pending_workloads", "admitted_workloads"} {
		var v types.Int64
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(a), &v)...)
		resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, a, v)...)
	}
	var active types.Bool
	var msg types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("active"), &active)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("active_message"), &msg)...)
	if active.ValueBool() {
		resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, "active", active)...)
		resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, "active_message", msg)...)
	}
}

func (r *kueueQueueResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var st kueueQueueModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := st.Timeouts.Delete(ctx, defaultKueueTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, ok := r.kube(ctx, &st, &resp.Diagnostics)
	if !ok {
		return
	}
	name := st.Name.ValueString()
	// Everything is checked before anything is deleted: a destroy that cannot finish must not leave half a queue.
	holders, err := kueueuse.WaitReleased(ctx, c, name)
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting Kueue queue (%s)", name), err.Error())
		return
	}
	if len(holders) > 0 {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting Kueue queue (%s)", name), "Nothing was deleted. "+kueueuse.HoldersError(name, c.Host, holders).Error())
		return
	}
	// Read once before anything is deleted too, so that an API that cannot be listed fails the destroy up front.
	if _, err := kueueuse.FindUsers(ctx, c, name); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting Kueue queue (%s)", name), "Nothing was deleted. "+err.Error())
		return
	}
	all := st.objectNames().union(appliedObjects(ctx, req.Private, &resp.Diagnostics))
	// The queue's own ClusterQueue and LocalQueues first; then who else uses the shared objects is read again, so that
	// queues destroyed together (one apply, or several states) do not each keep them for the other.
	if err := deleteQueueObjects(ctx, c, queueObjectNames{ClusterQueue: all.ClusterQueue, LocalQueues: all.LocalQueues}); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting Kueue queue (%s)", name), err.Error())
		return
	}
	u, err := kueueuse.FindUsers(ctx, c, name)
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting Kueue queue (%s)", name), err.Error())
		return
	}
	objs, kept := withoutShared(queueObjectNames{Flavors: all.Flavors, Checks: all.Checks, Configs: all.Configs}, u)
	for _, k := range kept {
		tflog.Info(ctx, "keeping an object another ClusterQueue uses: "+k)
	}
	if err := deleteQueueObjects(ctx, c, objs); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting Kueue queue (%s)", name), err.Error())
	}
}

func (r *kueueQueueResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importID, diags := kueueQueueIdentity.ImportID(ctx, req)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	defer kueueQueueIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	st := kueueQueueModel{Timeouts: tfvalue.TimeoutsNull(), ForceConflicts: types.BoolValue(true), NamespaceSelector: types.MapNull(types.StringType), Cohort: types.StringNull(), AdmissionChecks: types.ListNull(types.StringType),
		StopPolicy: types.StringNull(), Drift: types.ListNull(types.StringType)}
	var name string
	var err error
	st.Cluster, st.Project, st.Location, name, err = clusterscope.Import(importID, "/clusterQueues/", "NAME", r.clients)
	if err != nil {
		resp.Diagnostics.AddError("importing Kueue queue", err.Error())
		return
	}
	st.ID, st.Name = types.StringValue(importID), types.StringValue(name)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateDiscover, []byte(`true`))...)
}

func (r *kueueQueueResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m kueueQueueModel
	u, diags := tfvalue.KnownConfig(ctx, req.Config, &m)
	resp.Diagnostics.Append(diags...)
	if !resp.Diagnostics.HasError() {
		validateQueue(&m, u, &resp.Diagnostics)
	}
}

// ModifyPlan resolves the cluster and the id at plan time, checks again what became known since validation, and keeps
// the status of the last refresh in the plan of an update (a change of quotas is no reason to show every counter as
// known after apply).
func (r *kueueQueueResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	clusterscope.PlanNamed(ctx, r.clients, req, resp, "clusterQueues")
	if !req.State.Raw.IsNull() {
		keepQueueStatus(ctx, req, resp)
	}
	if tfdrift.PlanRepair(ctx, req, resp) {
		// The framework planned the status of a refresh that changed nothing it compares; the update waits for Active
		// again, so an inactive queue's status is known only after it.
		var active types.Bool
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("active"), &active)...)
		if !active.ValueBool() {
			resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, "active", types.BoolUnknown())...)
			resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, "active_message", types.StringUnknown())...)
		}
	}
	var m kueueQueueModel
	u, diags := tfvalue.KnownPlan(ctx, req.Plan, &m)
	resp.Diagnostics.Append(diags...)
	if !resp.Diagnostics.HasError() {
		validateQueue(&m, u, &resp.Diagnostics)
	}
}

// kube returns the clients of the queue's cluster.
func (r *kueueQueueResource) kube(ctx context.Context, m *kueueQueueModel, diags *diag.Diagnostics) (*kube.Clients, bool) {
	return clusterscope.Kube(ctx, r.clients, m.Cluster, m.Project, m.Location, diags)
}

// recordQueueBaselines keeps what this apply left on each object, for Read to compare the live objects with. Without
// one, drift is not compared until the next apply: a warning, since the apply itself did what it was asked.
func recordQueueBaselines(ctx context.Context, c *kube.Clients, m *kueueQueueModel, p tfvalue.PrivateState, diags *diag.Diagnostics) {
	b, err := queueBaselines(ctx, c, m)
	if err != nil {
		diags.AddWarning("Drift not recorded", fmt.Sprintf("Kueue queue %s was applied, but what the apply left could not be read back, so "+
			"changes made beside Terraform are not compared until the next apply: %v", m.Name.ValueString(), err))
	}
	tfdrift.Record(ctx, p, b, diags)
}

func queueBaselines(ctx context.Context, c *kube.Clients, m *kueueQueueModel) (map[string]drift.Baseline, error) {
	o, err := findQueue(ctx, c, m, false)
	if err != nil {
		return nil, err
	}
	objs := o.live()
	ty, err := c.Types(tfdrift.KindsOf(objs)...)
	if err != nil {
		return nil, err
	}
	return tfdrift.Take(ty, objs, tfdrift.ByManager)
}

// queueDrift compares the live objects with what the last apply left on them.
func queueDrift(c *kube.Clients, b map[string]drift.Baseline, o *kueueObjects) ([]string, error) {
	return tfdrift.Applied(c, b, o.live())
}
