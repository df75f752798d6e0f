package computeclass

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeclass"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/identity"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

var (
	_ resource.ResourceWithConfigure      = (*computeClassResource)(nil)
	_ resource.ResourceWithImportState    = (*computeClassResource)(nil)
	_ resource.ResourceWithIdentity       = (*computeClassResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*computeClassResource)(nil)
	_ resource.ResourceWithValidateConfig = (*computeClassResource)(nil)
)

// A ComputeClass is one object that takes effect when written; deletion waits only for its finalizers.
const defaultComputeClassTimeout = 5 * time.Minute

// New is the dwsfallback_compute_class resource.
func New() resource.Resource { return &computeClassResource{} }

type computeClassResource struct {
	clients clusterscope.Clients
}

// computeClassIdentity names the object by the attributes of its id (identity.Spec).
var computeClassIdentity = identity.New("projects/{project}/locations/{location}/clusters/{cluster}/computeClasses/{name}", "{name}")

func (r *computeClassResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_compute_class"
}

func (r *computeClassResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = computeClassIdentity.Schema()
}

func (r *computeClassResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = clusterscope.FromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (r *computeClassResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer computeClassIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	var plan computeClassModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultComputeClassTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if r.write(ctx, &plan, "creating", resp.Private, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	}
}

func (r *computeClassResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	// Set first: a Read that finds the object gone must still name it.
	computeClassIdentity.FromState(&req.State, resp.Identity, &resp.Diagnostics)
	var st computeClassModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := clusterscope.KubeForRead(ctx, r.clients, st.Cluster, st.Project, st.Location, resp)
	if !ok {
		return
	}
	u, err := gkeclass.Find(ctx, c, st.Name.ValueString())
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading ComputeClass (%s)", st.Name.ValueString()), err.Error())
		return
	}
	if u == nil {
		resp.Diagnostics.AddWarning("ComputeClass not found", fmt.Sprintf("ComputeClass %s no longer exists on %s; it will be created again.", st.Name.ValueString(), c.Host))
		resp.State.RemoveResource(ctx)
		return
	}
	flattenComputeClass(&st, u)
	d, err := classDrift(c, tfdrift.Read(ctx, req.Private, &resp.Diagnostics), u)
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading ComputeClass (%s)", st.Name.ValueString()), err.Error())
		return
	}
	st.Drift = tfdrift.List(d)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

func (r *computeClassResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer computeClassIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	var plan computeClassModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, defaultComputeClassTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if r.write(ctx, &plan, "updating", resp.Private, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	}
}

func (r *computeClassResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var st computeClassModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := st.Timeouts.Delete(ctx, defaultComputeClassTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, ok := r.kube(ctx, &st, &resp.Diagnostics)
	if !ok {
		return
	}
	if err := deleteComputeClass(ctx, c, st.Name.ValueString()); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting ComputeClass (%s)", st.Name.ValueString()), err.Error())
	}
}

func (r *computeClassResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importID, diags := computeClassIdentity.ImportID(ctx, req)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	defer computeClassIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	st := computeClassModel{Timeouts: tfvalue.TimeoutsNull(), Description: types.StringNull(), Drift: types.ListNull(types.StringType)}
	var name string
	var err error
	st.Cluster, st.Project, st.Location, name, err = clusterscope.Import(importID, "/computeClasses/", "NAME", r.clients)
	if err != nil {
		resp.Diagnostics.AddError("importing ComputeClass", err.Error())
		return
	}
	st.ID, st.Name = types.StringValue(importID), types.StringValue(name)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

func (r *computeClassResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m computeClassModel
	u, diags := tfvalue.KnownConfig(ctx, req.Config, &m)
	resp.Diagnostics.Append(diags...)
	if !resp.Diagnostics.HasError() {
		validateComputeClass(&m, u, &resp.Diagnostics)
	}
}

// ModifyPlan resolves the cluster and the id at plan time, and checks again what became known since validation.
func (r *computeClassResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	clusterscope.PlanNamed(ctx, r.clients, req, resp, "computeClasses")
	if !req.State.Raw.IsNull() && tfdrift.PlanRepair(ctx, req, resp) {
		// The update reads the class's health again: GKE may have rewritten it since the refresh.
		resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, "health", types.StringUnknown())...)
	}
	var m computeClassModel
	u, diags := tfvalue.KnownPlan(ctx, req.Plan, &m)
	resp.Diagnostics.Append(diags...)
	if !resp.Diagnostics.HasError() {
		validateComputeClass(&m, u, &resp.Diagnostics)
	}
}

// write checks the class's pools and writes it; a create refuses a class that is already there, which only an import
// may take over.
func (r *computeClassResource) write(ctx context.Context, m *computeClassModel, verb string, p tfvalue.PrivateState, diags *diag.Diagnostics) bool {
	c, ok := r.kube(ctx, m, diags)
	if !ok || !r.checkClassPools(ctx, m, diags) {
		return false
	}
	summary := fmt.Sprintf("%s ComputeClass (%s)", verb, m.Name.ValueString())
	have, err := gkeclass.Find(ctx, c, m.Name.ValueString())
	if err == nil && have != nil && verb == "creating" {
		err = fmt.Errorf("ComputeClass %s already exists on %s: import it (terraform import, id %s) instead of creating it", m.Name.ValueString(), c.Host, m.ID.ValueString())
	}
	if err != nil {
		diags.AddError(summary, err.Error())
		return false
	}
	u, err := putComputeClass(ctx, c, have, expandComputeClass(ctx, m))
	if err != nil {
		diags.AddError(summary, err.Error())
		return false
	}
	settled, reported, err := waitClassReported(ctx, c, u)
	switch {
	case err != nil:
		diags.AddWarning(summary, fmt.Sprintf("reading the class's health after the write: %v. The next refresh reads it.", err))
	case !reported:
		diags.AddWarning(summary, fmt.Sprintf("GKE's autoscaler has not reported on ComputeClass %s (does %s run it?): health is left as read, and the next refresh may change it.", m.Name.ValueString(), c.Host))
	}
	m.Health = types.StringValue(gkeclass.Health(settled))
	m.Drift = tfdrift.AppliedValue(m.Drift)
	recordClassBaseline(ctx, c, u, p, diags)
	return true
}

func (r *computeClassResource) kube(ctx context.Context, m *computeClassModel, diags *diag.Diagnostics) (*kube.Clients, bool) {
	return clusterscope.Kube(ctx, r.clients, m.Cluster, m.Project, m.Location, diags)
}
