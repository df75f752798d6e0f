package multikueue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/identity"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	mk "github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

var (
	_ resource.ResourceWithConfigure   = (*multiKueueConfigResource)(nil)
	_ resource.ResourceWithImportState = (*multiKueueConfigResource)(nil)
	_ resource.ResourceWithIdentity    = (*multiKueueConfigResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*multiKueueConfigResource)(nil)
)

const defaultMultiKueueConfigTimeout = 5 * time.Minute

// NewConfig is the dwsfallback_multikueue_config resource.
func NewConfig() resource.Resource { return &multiKueueConfigResource{} }

type multiKueueConfigResource struct {
	clients clusterscope.Clients
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
	Drift          types.List     `tfsdk:"drift"`
	Timeouts       timeouts.Value `tfsdk:"timeouts"`
}

// multiKueueConfigIdentity names the object by the attributes of its id (identity.Spec).
var multiKueueConfigIdentity = identity.New("projects/{project}/locations/{location}/clusters/{cluster}/multiKueueConfigs/{name}", "{name}")

func (r *multiKueueConfigResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_multikueue_config"
}

func (r *multiKueueConfigResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = multiKueueConfigIdentity.Schema()
}

func (r *multiKueueConfigResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = clusterscope.FromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (r *multiKueueConfigResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer multiKueueConfigIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	var plan multiKueueConfigModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultMultiKueueConfigTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r.write(ctx, &plan, "creating", &resp.State, resp.Private, &resp.Diagnostics)
}

func (r *multiKueueConfigResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	// Set first: a Read that finds the object gone must still name it.
	multiKueueConfigIdentity.FromState(&req.State, resp.Identity, &resp.Diagnostics)
	var st multiKueueConfigModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := clusterscope.KubeForRead(ctx, r.clients, st.Cluster, st.Project, st.Location, resp)
	if !ok {
		return
	}
	name := st.Name.ValueString()
	cfg, err := mk.FindConfig(ctx, c.Kueue, name)
	var ac *kueue.AdmissionCheck
	if err == nil {
		ac, err = mk.FindConfigCheck(ctx, c.Kueue, name, st.AdmissionCheck.ValueString())
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
		tfvalue.WritePrivate(ctx, resp.Private, privateLostCheck, st.AdmissionCheck.ValueString(), &resp.Diagnostics)
	}
	flattenCheck(&st, ac)
	objs, _ := configObjects(cfg, ac) // a check gone (read as "") plans its repair already
	d, err := tfdrift.Applied(c, tfdrift.Read(ctx, req.Private, &resp.Diagnostics), objs)
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading MultiKueueConfig (%s)", name), err.Error())
		return
	}
	st.Drift = tfdrift.List(d)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

// recordConfig keeps what the apply left on the config and its check, read back after it.
func recordConfig(ctx context.Context, c *kube.Clients, name, check string, private tfvalue.PrivateState, diags *diag.Diagnostics) {
	cfg, err := mk.FindConfig(ctx, c.Kueue, name)
	var ac *kueue.AdmissionCheck
	if err == nil {
		ac, err = mk.FindCheck(ctx, c.Kueue, check)
	}
	var objs []tfdrift.Object
	if err == nil {
		objs, err = configObjects(cfg, ac)
	}
	if err != nil {
		diags.AddWarning("Drift not recorded", fmt.Sprintf("MultiKueueConfig %s was applied, but what the apply left could not be read back, so "+
			"changes made beside Terraform are not compared until the next apply: %v", name, err))
		return
	}
	tfdrift.RecordApplied(ctx, c, "MultiKueueConfig "+name, objs, private, diags)
}

// configObjects are the config and its check as written; an error when either is missing.
func configObjects(cfg *kueue.MultiKueueConfig, ac *kueue.AdmissionCheck) ([]tfdrift.Object, error) {
	var out []tfdrift.Object
	if cfg != nil {
		out = append(out, tfdrift.Object{Key: "MultiKueueConfig/" + cfg.Name, GVK: kueue.GroupVersion.WithKind("MultiKueueConfig"), Obj: cfg})
	}
	if ac != nil {
		out = append(out, tfdrift.Object{Key: "AdmissionCheck/" + ac.Name, GVK: kueue.GroupVersion.WithKind("AdmissionCheck"), Obj: ac})
	}
	if len(out) < 2 {
		return out, errors.New("the MultiKueueConfig or its AdmissionCheck is missing")
	}
	return out, nil
}

// privateLostCheck holds the name of a check found gone, until it is written again.
const privateLostCheck = "lost_check"

// lostCheck is the name of the check Read found gone, "" when none.
func lostCheck(ctx context.Context, p tfvalue.PrivateGetter) string {
	var diags diag.Diagnostics
	var lost string
	if !tfvalue.ReadPrivate(ctx, p, privateLostCheck, &lost, &diags) || diags.HasError() {
		return ""
	}
	return lost
}

func (r *multiKueueConfigResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer multiKueueConfigIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	var plan multiKueueConfigModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, defaultMultiKueueConfigTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r.write(ctx, &plan, "updating", &resp.State, resp.Private, &resp.Diagnostics)
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
	c, ok := clusterscope.Kube(ctx, r.clients, st.Cluster, st.Project, st.Location, &resp.Diagnostics)
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
	users, err := mk.QueuesUsing(ctx, c.Kueue, check)
	if err != nil {
		resp.Diagnostics.AddError(summary, c.Explain("ClusterQueue", "", err).Error())
		return
	}
	if len(users) > 0 {
		resp.Diagnostics.AddError(summary, fmt.Sprintf("ClusterQueue %v still lists admission check %s on %s: remove it from their admission_checks first. Nothing was deleted.", users, check, c.Host))
		return
	}
	if err := mk.DeleteConfig(ctx, c.Kueue, name, check); err != nil {
		resp.Diagnostics.AddError(summary, c.Explain("MultiKueueConfig", name, err).Error())
	}
}

func (r *multiKueueConfigResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importID, diags := multiKueueConfigIdentity.ImportID(ctx, req)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	defer multiKueueConfigIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	st := multiKueueConfigModel{Timeouts: tfvalue.TimeoutsNull(), Workers: types.ListNull(types.StringType), AdmissionCheck: types.StringNull(),
		Active: types.BoolNull(), ActiveReason: types.StringNull(), ActiveMessage: types.StringNull(), Drift: types.ListNull(types.StringType)}
	var name string
	var err error
	st.Cluster, st.Project, st.Location, name, err = clusterscope.Import(importID, "/multiKueueConfigs/", "NAME", r.clients)
	if err != nil {
		resp.Diagnostics.AddError("importing MultiKueueConfig", err.Error())
		return
	}
	st.ID, st.Name = types.StringValue(importID), types.StringValue(name)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

// ModifyPlan resolves the cluster and the id, and plans the check written again when Read found it gone or changed.
func (r *multiKueueConfigResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	clusterscope.PlanNamed(ctx, r.clients, req, resp, "multiKueueConfigs")
	if !req.State.Raw.IsNull() && tfdrift.PlanRepair(ctx, req, resp) {
		// The update waits for the check to be Active again.
		for _, a := range []string{"active_reason", "active_message"} {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(a), types.StringUnknown())...)
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("active"), types.BoolUnknown())...)
	}
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
func (r *multiKueueConfigResource) write(ctx context.Context, m *multiKueueConfigModel, verb string, state tfvalue.StateSetter, private tfvalue.PrivateState, diags *diag.Diagnostics) {
	name := m.Name.ValueString()
	summary := fmt.Sprintf("%s MultiKueueConfig (%s)", verb, name)
	c, ok := clusterscope.Kube(ctx, r.clients, m.Cluster, m.Project, m.Location, diags)
	if !ok {
		return
	}
	if verb == "creating" {
		have, err := mk.FindConfig(ctx, c.Kueue, name)
		if err == nil && have != nil {
			err = fmt.Errorf("MultiKueueConfig %s already exists on %s: import it (terraform import, id %s) instead of creating it", name, c.Host, m.ID.ValueString())
		}
		if err != nil {
			diags.AddError(summary, err.Error())
			return
		}
	}
	workers, check := tfvalue.StringList(m.Workers), m.checkName()
	if verb == "creating" {
		// The apply is forced (the configuration owns the check's fields), so a check of that name that is not this
		// config's would be taken over, and the queues that list it sent to these workers.
		ac, err := mk.FindCheck(ctx, c.Kueue, check)
		if err == nil && ac != nil && !mk.IsConfigCheck(ac, name) {
			err = fmt.Errorf("AdmissionCheck %s already exists on %s and is not MultiKueueConfig %s's check (controller %s): "+
				"choose another config name, or delete that check", check, c.Host, name, ac.Spec.ControllerName)
		}
		if err != nil {
			diags.AddError(summary, err.Error())
			return
		}
	}
	if err := mk.ApplyConfig(ctx, c.Kueue, name, check, workers, kube.FieldManager); err != nil {
		diags.AddError(summary, c.Explain("MultiKueueConfig", name, err).Error())
		return
	}
	m.AdmissionCheck, m.Drift = types.StringValue(check), tfdrift.AppliedValue(m.Drift)
	m.Active, m.ActiveReason, m.ActiveMessage = types.BoolValue(false), types.StringValue("Pending"), types.StringValue("")
	recordConfig(ctx, c, name, check, private, diags)
	// In state before the wait: a config no worker of which connects taints the resource instead of orphaning it.
	diags.Append(state.Set(ctx, m)...)
	ac, err := mk.WaitCheckActive(ctx, c.Kueue, check)
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
	if ac == nil || !mk.IsConfigCheck(ac, m.Name.ValueString()) {
		m.AdmissionCheck = types.StringValue("")
		m.Active, m.ActiveReason, m.ActiveMessage = types.BoolValue(false), types.StringValue("Missing"), types.StringValue("")
		return
	}
	m.AdmissionCheck = types.StringValue(ac.Name)
	active, reason, msg := mk.CheckActive(ac)
	m.Active, m.ActiveReason, m.ActiveMessage = types.BoolValue(active), types.StringValue(reason), types.StringValue(msg)
}
