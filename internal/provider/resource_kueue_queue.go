package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

var (
	_ resource.ResourceWithConfigure      = (*kueueQueueResource)(nil)
	_ resource.ResourceWithImportState    = (*kueueQueueResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*kueueQueueResource)(nil)
	_ resource.ResourceWithValidateConfig = (*kueueQueueResource)(nil)
)

// Kueue objects become Active in seconds; the wait is bounded anyway by the timeouts block.
const defaultKueueTimeout = 10 * time.Minute

// privateDiscover marks a freshly imported queue, whose LocalQueues Read must discover.
const privateDiscover = "discover_local_queues"

func NewKueueQueueResource() resource.Resource { return &kueueQueueResource{} }

type kueueQueueResource struct {
	clients clients
}

func (r *kueueQueueResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_kueue_queue"
}

func (r *kueueQueueResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = providerClients(req.ProviderData, &resp.Diagnostics)
}

func (r *kueueQueueResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
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
	// next apply accounts for all of them.
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	recordObjects(ctx, resp.Private, plan.objectNames(), &resp.Diagnostics)
	if wrote, err := applyQueueObjects(ctx, c, &plan); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("creating Kueue queue (%s)", plan.Name.ValueString()), err.Error())
		if !wrote {
			resp.State.RemoveResource(ctx)
		}
		return
	}
	r.settle(ctx, c, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *kueueQueueResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var st kueueQueueModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := kubeForRead(ctx, r.clients, st.Cluster, st.Project, st.Location, resp)
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
		resp.Diagnostics.AddWarning("ClusterQueue not found", fmt.Sprintf("ClusterQueue %s no longer exists on %s; it will be created again with its flavors, checks and local queues.", st.Name.ValueString(), c.Host))
		resp.State.RemoveResource(ctx)
		return
	}
	prior := st
	if len(discover) > 0 {
		prior.LocalQueues = nil
	}
	flattenQueue(&st, o, &prior)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
	if len(discover) > 0 {
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateDiscover, nil)...)
	}
}

func (r *kueueQueueResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
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
	if err := applyQueue(ctx, c, &plan); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("updating Kueue queue (%s)", plan.Name.ValueString()), err.Error())
		return
	}
	// What the configuration no longer names goes, after the ClusterQueue stopped referring to it.
	if err := deleteQueueObjects(ctx, c, removedObjects(before, &plan)); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("updating Kueue queue (%s): removing objects no longer configured", plan.Name.ValueString()), err.Error())
		return
	}
	recordObjects(ctx, resp.Private, plan.objectNames(), &resp.Diagnostics)
	r.settle(ctx, c, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
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
	if err := deleteQueueObjects(ctx, c, st.objectNames().union(appliedObjects(ctx, req.Private, &resp.Diagnostics))); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting Kueue queue (%s)", st.Name.ValueString()), err.Error())
	}
}

func (r *kueueQueueResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	st := kueueQueueModel{Timeouts: timeoutsNull(), ForceConflicts: types.BoolValue(true), NamespaceSelector: types.MapNull(types.StringType)}
	if i := strings.Index(req.ID, "/clusterQueues/"); i >= 0 {
		ref, err := parseCluster(req.ID[:i])
		if err != nil || ref.Project == "" {
			resp.Diagnostics.AddError("importing Kueue queue", fmt.Sprintf("id %q must be projects/PROJECT/locations/LOCATION/clusters/CLUSTER/clusterQueues/NAME, or NAME with a provider kubernetes block", req.ID))
			return
		}
		st.Name = types.StringValue(req.ID[i+len("/clusterQueues/"):])
		st.Cluster, st.Project, st.Location = types.StringValue(ref.Name), types.StringValue(ref.Project), types.StringValue(ref.Location)
	} else {
		if r.clients != nil && !r.clients.HasKubernetesBlock() {
			resp.Diagnostics.AddError("importing Kueue queue", fmt.Sprintf("id %q names no cluster: use projects/PROJECT/locations/LOCATION/clusters/CLUSTER/clusterQueues/NAME, or give the provider a kubernetes block", req.ID))
			return
		}
		st.Name = types.StringValue(req.ID)
		st.Cluster, st.Project, st.Location = types.StringNull(), types.StringNull(), types.StringNull()
	}
	st.ID = types.StringValue(req.ID)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateDiscover, []byte(`true`))...)
}

func (r *kueueQueueResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m kueueQueueModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	seen := map[string]bool{}
	var want []string
	checks := map[string]*provisioningModel{}
	for i, f := range m.Flavors {
		p := path.Root("flavors").AtListIndex(i)
		if n := f.Name.ValueString(); !f.Name.IsUnknown() {
			if seen[n] {
				resp.Diagnostics.AddAttributeError(p.AtName("name"), "Duplicate flavor", fmt.Sprintf("Flavor %q is listed twice; each flavor appears once, in fallback order.", n))
			}
			seen[n] = true
		}
		if !f.Quotas.IsUnknown() && !f.Quotas.IsNull() {
			var got []string
			for k := range f.Quotas.Elements() {
				got = append(got, k)
			}
			sort.Strings(got)
			if want == nil {
				want = got
			} else if strings.Join(got, ",") != strings.Join(want, ",") {
				resp.Diagnostics.AddAttributeError(p.AtName("quotas"), "Flavors quota different resources",
					fmt.Sprintf("Every flavor of a ClusterQueue must quota the same resources (Kueue's covered resources): the first flavor quotas [%s], flavor %q quotas [%s]. Give each the same keys, with 0 where it has none.",
						strings.Join(want, ", "), f.Name.ValueString(), strings.Join(got, ", ")))
			}
		}
		if pr := f.Provisioning; pr != nil && !pr.AdmissionCheck.IsUnknown() {
			if other, ok := checks[pr.AdmissionCheck.ValueString()]; ok && (!other.Config.Equal(pr.Config) || !other.Class.Equal(pr.Class)) {
				resp.Diagnostics.AddAttributeError(p.AtName("provisioning"), "One admission check, two configurations",
					fmt.Sprintf("Admission check %q is used with different config or class on two flavors; give the second its own admission_check name.", pr.AdmissionCheck.ValueString()))
			}
			checks[pr.AdmissionCheck.ValueString()] = pr
		}
	}
	queues := map[string]bool{}
	for i, lq := range m.LocalQueues {
		k := lq.Namespace.ValueString() + "/" + lq.Name.ValueString()
		if queues[k] && !lq.Name.IsUnknown() && !lq.Namespace.IsUnknown() {
			resp.Diagnostics.AddAttributeError(path.Root("local_queues").AtListIndex(i), "Duplicate local queue", fmt.Sprintf("Local queue %s is listed twice.", k))
		}
		queues[k] = true
	}
}

// ModifyPlan resolves the cluster and the id at plan time and refuses a queue that names no cluster when the provider
// has no kubernetes block.
func (r *kueueQueueResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	var cluster, project, location, name types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("cluster"), &cluster)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("project"), &project)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("location"), &location)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	if resp.Diagnostics.HasError() || cluster.IsUnknown() || name.IsUnknown() {
		return
	}
	if cluster.IsNull() {
		if !r.clients.HasKubernetesBlock() {
			resp.Diagnostics.AddAttributeError(path.Root("cluster"), "No cluster",
				"Set cluster (the GKE cluster's name or id), or give the provider a kubernetes block that names the cluster.")
			return
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), name)...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("project"), types.StringNull())...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("location"), types.StringNull())...)
		return
	}
	ref, err := resolveCluster(cluster.ValueString(), knownString(project), knownString(location), r.clients)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("cluster"), "Cannot tell which cluster", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("project"), ref.Project)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("location"), ref.Location)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), ref.String()+"/clusterQueues/"+name.ValueString())...)
}

// kube returns the clients of the queue's cluster.
func (r *kueueQueueResource) kube(ctx context.Context, m *kueueQueueModel, diags *diag.Diagnostics) (*kube.Clients, bool) {
	return kubeFor(ctx, r.clients, m.Cluster, m.Project, m.Location, diags)
}

// settle waits for Kueue to report the queue Active and records its status.
func (r *kueueQueueResource) settle(ctx context.Context, c *kube.Clients, m *kueueQueueModel, diags *diag.Diagnostics) {
	if err := waitQueueActive(ctx, c, m); err != nil {
		diags.AddError(fmt.Sprintf("waiting for Kueue queue (%s) to be Active", m.Name.ValueString()), err.Error())
	}
	o, err := findQueue(ctx, c, m, false)
	if err != nil || o.cq == nil {
		diags.AddError(fmt.Sprintf("reading Kueue queue (%s)", m.Name.ValueString()), fmt.Sprint(err))
		return
	}
	setQueueStatus(m, o.cq)
}

// removedObjects is what was applied before (prior state and the private record) and plan no longer names.
func removedObjects(before queueObjectNames, plan *kueueQueueModel) queueObjectNames {
	keep := plan.objectNames()
	return queueObjectNames{
		Flavors:     subtract(before.Flavors, keep.Flavors),
		Checks:      subtract(before.Checks, keep.Checks),
		Configs:     subtract(before.Configs, keep.Configs),
		LocalQueues: subtract(before.LocalQueues, keep.LocalQueues),
	}
}

func subtract(a, b []string) []string {
	drop := map[string]bool{}
	for _, s := range b {
		drop[s] = true
	}
	var out []string
	for _, s := range a {
		if !drop[s] {
			out = append(out, s)
		}
	}
	return out
}

// privateObjects is the private record of every object name this resource applied. Read drops objects deleted out of
// band from state (so the plan shows them), which would otherwise make Delete forget what to delete.
const privateObjects = "applied_objects"

type privateState interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

func appliedObjects(ctx context.Context, p privateState, diags *diag.Diagnostics) queueObjectNames {
	var o queueObjectNames
	b, d := p.GetKey(ctx, privateObjects)
	diags.Append(d...)
	if len(b) > 0 {
		_ = json.Unmarshal(b, &o)
	}
	return o
}

func recordObjects(ctx context.Context, p privateState, o queueObjectNames, diags *diag.Diagnostics) {
	b, _ := json.Marshal(o)
	diags.Append(p.SetKey(ctx, privateObjects, b)...)
}
