package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
)

var (
	_ resource.ResourceWithConfigure   = (*multiKueueConfigResource)(nil)
	_ resource.ResourceWithImportState = (*multiKueueConfigResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*multiKueueConfigResource)(nil)
)

const defaultMultiKueueConfigTimeout = 5 * time.Minute

func NewMultiKueueConfigResource() resource.Resource { return &multiKueueConfigResource{} }

type multiKueueConfigResource struct {
	clients clients
}

type multiKueueConfigModel struct {
	ID             types.String   `tfsdk:"id"`
	Cluster        types.String   `tfsdk:"cluster"`
	Project        types.String   `tfsdk:"project"`
	Location       types.String   `tfsdk:"location"`
	Name           types.String   `tfsdk:"name"`
	Workers        types.List     `tfsdk:"workers"`
	AdmissionCheck types.String   `tfsdk:"admission_check"`
	Active         types.Bool     `tfsdk:"active"`
	ActiveReason   types.String   `tfsdk:"active_reason"`
	ActiveMessage  types.String   `tfsdk:"active_message"`
	Timeouts       timeouts.Value `tfsdk:"timeouts"`
}

func (r *multiKueueConfigResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_multikueue_config"
}

func (r *multiKueueConfigResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = providerClients(req.ProviderData, &resp.Diagnostics)
}

func (r *multiKueueConfigResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan multiKueueConfigModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultMultiKueueConfigTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r.write(ctx, &plan, "creating", &resp.State, &resp.Diagnostics)
}

func (r *multiKueueConfigResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var st multiKueueConfigModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := kubeForRead(ctx, r.clients, st.Cluster, st.Project, st.Location, resp)
	if !ok {
		return
	}
	name := st.Name.ValueString()
	cfg, err := multikueue.FindConfig(ctx, c.Kueue, name)
	var ac *kueue.AdmissionCheck
	if err == nil {
		ac, err = multikueue.FindConfigCheck(ctx, c.Kueue, name, st.AdmissionCheck.ValueString())
	}
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading MultiKueueConfig (%s)", name), c.Explain("MultiKueueConfig", name, err).Error())
		return
	}
	if cfg == nil {
		resp.Diagnostics.AddWarning("MultiKueueConfig not found", fmt.Sprintf("MultiKueueConfig %s no longer exists on %s; it will be created again.", name, c.Host))
		resp.State.RemoveResource(ctx)
		return
	}
	workers := make([]attr.Value, 0, len(cfg.Spec.Clusters))
	for _, w := range cfg.Spec.Clusters {
		workers = append(workers, types.StringValue(w))
	}
	st.Workers = types.ListValueMust(types.StringType, workers)
	if ac == nil && st.AdmissionCheck.ValueString() != "" {
		// Remembered, so that the check deleted by hand is written again under the name queues list.
		writePrivate(ctx, resp.Private, privateLostCheck, st.AdmissionCheck.ValueString(), &resp.Diagnostics)
	}
	flattenCheck(&st, ac)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

// privateLostCheck holds the name of a check found gone, until it is written again.
const privateLostCheck = "lost_check"

// lostCheck is the name of the check Read found gone, "" when none.
func lostCheck(ctx context.Context, p privateGetter) string {
	var diags diag.Diagnostics
	var lost string
	if !readPrivate(ctx, p, privateLostCheck, &lost, &diags) || diags.HasError() {
		return ""
	}
	return lost
}

func (r *multiKueueConfigResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan multiKueueConfigModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, defaultMultiKueueConfigTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r.write(ctx, &plan, "updating", &resp.State, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateLostCheck, nil)...)
}

func (r *multiKueueConfigResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var st multiKueueConfigModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := st.Timeouts.Delete(ctx, defaultMultiKueueConfigTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, ok := kubeFor(ctx, r.clients, st.Cluster, st.Project, st.Location, &resp.Diagnostics)
	if !ok {
		return
	}
	name, check := st.Name.ValueString(), st.checkName()
	if st.AdmissionCheck.ValueString() == "" {
		if lost := lostCheck(ctx, req.Private); lost != "" {
			check = lost
		}
	}
	summary := fmt.Sprintf("deleting MultiKueueConfig (%s)", name)
	// Refused before anything goes: a ClusterQueue whose check is gone admits nothing, silently.
	users, err := multikueue.QueuesUsing(ctx, c.Kueue, check)
	if err != nil {
		resp.Diagnostics.AddError(summary, c.Explain("ClusterQueue", "", err).Error())
		return
	}
	if len(users) > 0 {
		resp.Diagnostics.AddError(summary, fmt.Sprintf("ClusterQueue %v still lists admission check %s on %s: remove it from their admission_checks first. Nothing was deleted.", users, check, c.Host))
		return
	}
	if err := multikueue.DeleteConfig(ctx, c.Kueue, name, check); err != nil {
		resp.Diagnostics.AddError(summary, c.Explain("MultiKueueConfig", name, err).Error())
	}
}

func (r *multiKueueConfigResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	st := multiKueueConfigModel{Timeouts: timeoutsNull(), Workers: types.ListNull(types.StringType), AdmissionCheck: types.StringNull(),
		Active: types.BoolNull(), ActiveReason: types.StringNull(), ActiveMessage: types.StringNull()}
	var name string
	var err error
	st.Cluster, st.Project, st.Location, name, err = scopedImport(req.ID, "/multiKueueConfigs/", "NAME", r.clients)
	if err != nil {
		resp.Diagnostics.AddError("importing MultiKueueConfig", err.Error())
		return
	}
	st.ID, st.Name = types.StringValue(req.ID), types.StringValue(name)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

// ModifyPlan resolves the cluster and the id, and plans the check written again when Read found it gone or changed.
func (r *multiKueueConfigResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	planNamedClusterScope(ctx, r.clients, req, resp, "multiKueueConfigs")
	var name, check, prior types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("admission_check"), &check)...)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("admission_check"), &prior)...)
	}
	if resp.Diagnostics.HasError() || name.IsUnknown() {
		return
	}
	// The check keeps the name it has (an imported one may differ from the config's), also when it was deleted by
	// hand (read as "", its name remembered); a new one is written under the config's name.
	want := name
	if !prior.IsNull() && prior.ValueString() != "" {
		want = prior
	} else if lost := lostCheck(ctx, req.Private); lost != "" {
		want = types.StringValue(lost)
	}
	if check.Equal(want) {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("admission_check"), want)...)
	if !req.State.Raw.IsNull() && prior.ValueString() == "" {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("active"), types.BoolUnknown())...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("active_reason"), types.StringUnknown())...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("active_message"), types.StringUnknown())...)
	}
}

// write applies the config and its check, saves state, then waits until Kueue reports the check Active.
func (r *multiKueueConfigResource) write(ctx context.Context, m *multiKueueConfigModel, verb string, state stateSetter, diags *diag.Diagnostics) {
	name := m.Name.ValueString()
	summary := fmt.Sprintf("%s MultiKueueConfig (%s)", verb, name)
	c, ok := kubeFor(ctx, r.clients, m.Cluster, m.Project, m.Location, diags)
	if !ok {
		return
	}
	if verb == "creating" {
		have, err := multikueue.FindConfig(ctx, c.Kueue, name)
		if err == nil && have != nil {
			err = fmt.Errorf("MultiKueueConfig %s already exists on %s: import it (terraform import, id %s) instead of creating it", name, c.Host, m.ID.ValueString())
		}
		if err != nil {
			diags.AddError(summary, err.Error())
			return
		}
	}
	workers, check := stringList(m.Workers), m.checkName()
	if err := multikueue.ApplyConfig(ctx, c.Kueue, name, check, workers, kube.FieldManager); err != nil {
		diags.AddError(summary, c.Explain("MultiKueueConfig", name, err).Error())
		return
	}
	m.AdmissionCheck = types.StringValue(check)
	m.Active, m.ActiveReason, m.ActiveMessage = types.BoolValue(false), types.StringValue("Pending"), types.StringValue("")
	// In state before the wait: a config no worker of which connects taints the resource instead of orphaning it.
	diags.Append(state.Set(ctx, m)...)
	ac, err := multikueue.WaitCheckActive(ctx, c.Kueue, check)
	if ac != nil {
		flattenCheck(m, ac)
		diags.Append(state.Set(ctx, m)...)
	}
	if err != nil {
		diags.AddError(summary, fmt.Sprintf("%v. Check the workers' dwsfallback_multikueue_worker resources: their active_reason says why Kueue cannot use them.", err))
	}
}

// checkName is the AdmissionCheck's name: the one recorded, else the config's.
func (m *multiKueueConfigModel) checkName() string {
	if v := m.AdmissionCheck.ValueString(); v != "" && !m.AdmissionCheck.IsUnknown() {
		return v
	}
	return m.Name.ValueString()
}

// flattenCheck records the AdmissionCheck: its name while it is MultiKueue's check of this config, and its condition.
func flattenCheck(m *multiKueueConfigModel, ac *kueue.AdmissionCheck) {
	if ac == nil || !multikueue.IsConfigCheck(ac, m.Name.ValueString()) {
		m.AdmissionCheck = types.StringValue("")
		m.Active, m.ActiveReason, m.ActiveMessage = types.BoolValue(false), types.StringValue("Missing"), types.StringValue("")
		return
	}
	m.AdmissionCheck = types.StringValue(ac.Name)
	active, reason, msg := multikueue.CheckActive(ac)
	m.Active, m.ActiveReason, m.ActiveMessage = types.BoolValue(active), types.StringValue(reason), types.StringValue(msg)
}
