//go:build !nohelm

package kueueinstall

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"helm.sh/helm/v3/pkg/release"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/identity"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kueueuse"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

var (
	_ resource.ResourceWithConfigure   = (*kueueInstallResource)(nil)
	_ resource.ResourceWithImportState = (*kueueInstallResource)(nil)
	_ resource.ResourceWithIdentity    = (*kueueInstallResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*kueueInstallResource)(nil)
)

// The tutorial installs Kueue's chart from here; a local chart path works the same.
const defaultKueueChart = "oci://registry.k8s.io/kueue/charts/kueue"

// An install waits for Kueue's controller and webhook to be ready, as the queue waits for Kueue to accept its objects.
const defaultInstallTimeout = 10 * time.Minute

func New() resource.Resource { return &kueueInstallResource{} }

type kueueInstallResource struct {
	clients clusterscope.Clients
}

// kueueInstallIdentity names the object by the attributes of its id (identity.Spec).
var kueueInstallIdentity = identity.New("projects/{project}/locations/{location}/clusters/{cluster}/helmReleases/{namespace}/{release_name}", "{namespace}/{release_name}")

func (r *kueueInstallResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_kueue_install"
}

func (r *kueueInstallResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = kueueInstallIdentity.Schema()
}

func (r *kueueInstallResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = clusterscope.FromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (r *kueueInstallResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer kueueInstallIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	r.apply(ctx, req.Plan.Get, &resp.State, resp.Private, &resp.Diagnostics, true)
}

func (r *kueueInstallResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer kueueInstallIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	r.apply(ctx, req.Plan.Get, &resp.State, resp.Private, &resp.Diagnostics, false)
}

// privateCreatedNamespace records that the install made its namespace, so that destroy removes it again (and only then).
const privateCreatedNamespace = "created_namespace"

// apply installs (create) or upgrades (update) the release, then waits for Kueue if asked to.
func (r *kueueInstallResource) apply(ctx context.Context, get func(context.Context, any) diag.Diagnostics, state tfvalue.StateSetter, private tfvalue.PrivateState, diags *diag.Diagnostics, create bool) {
	var plan kueueInstallModel
	diags.Append(get(ctx, &plan)...)
	if diags.HasError() {
		return
	}
	var timeout time.Duration
	var d diag.Diagnostics
	if create {
		timeout, d = plan.Timeouts.Create(ctx, defaultInstallTimeout)
	} else {
		timeout, d = plan.Timeouts.Update(ctx, defaultInstallTimeout)
	}
	diags.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, h, ok := r.connect(ctx, &plan, diags)
	if !ok {
		return
	}
	values, err := releaseValues(&plan)
	if err != nil {
		diags.AddAttributeError(path.Root("values"), "Unreadable values", err.Error())
		return
	}
	ch, err := h.LoadChart(plan.Chart.ValueString(), plan.ChartVersion.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("chart"), "Cannot load the chart", err.Error())
		return
	}
	name := plan.ReleaseName.ValueString()
	var rel *release.Release
	if create {
		if _, nerr := c.Core.Namespaces().Get(ctx, plan.Namespace.ValueString(), metav1.GetOptions{}); apierrors.IsNotFound(nerr) {
			diags.Append(private.SetKey(ctx, privateCreatedNamespace, []byte(`true`))...)
		}
		rel, err = h.Install(ctx, name, ch, values)
		if err != nil && strings.Contains(err.Error(), "cannot re-use a name that is still in use") {
			rel, err = h.Upgrade(ctx, name, ch, values) // left by an interrupted apply: finish it
		}
	} else {
		rel, err = h.Upgrade(ctx, name, ch, values)
	}
	if rel != nil {
		flattenRelease(&plan, rel)
		plan.Drift = tfdrift.AppliedValue(plan.Drift)
		diags.Append(state.Set(ctx, &plan)...)
	}
	if err != nil {
		diags.AddError(fmt.Sprintf("installing Kueue (helm release %s/%s)", plan.Namespace.ValueString(), name), err.Error())
		return
	}
	recordInstall(ctx, c, rel, private, diags)
	if plan.Wait.ValueBool() {
		if err := kueueuse.WaitReady(ctx, c, plan.Namespace.ValueString(), name); err != nil {
			diags.AddError(fmt.Sprintf("waiting for Kueue (helm release %s/%s) to serve", plan.Namespace.ValueString(), name), err.Error())
		}
	}
}

func (r *kueueInstallResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	// Set first: a Read that finds the object gone must still name it.
	kueueInstallIdentity.FromState(&req.State, resp.Identity, &resp.Diagnostics)
	var st kueueInstallModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if _, ok := clusterscope.KubeForRead(ctx, r.clients, st.Cluster, st.Project, st.Location, resp); !ok {
		return
	}
	c, h, ok := r.connect(ctx, &st, &resp.Diagnostics)
	if !ok {
		return
	}
	rel, err := h.Get(st.ReleaseName.ValueString())
	if err != nil && strings.Contains(err.Error(), "not found") {
		resp.Diagnostics.AddWarning("Helm release not found", fmt.Sprintf("Kueue's release %s/%s is gone; it will be installed again.", st.Namespace.ValueString(), st.ReleaseName.ValueString()))
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("reading Kueue's helm release", err.Error())
		return
	}
	flattenRelease(&st, rel)
	var d []string
	if b := tfdrift.Read(ctx, req.Private, &resp.Diagnostics); len(b) > 0 {
		var objs []writtenObject
		if objs, err = releaseManagerObjects(ctx, c, rel); err == nil {
			d, err = installDrift(c, b, objs)
		}
	}
	if err != nil {
		resp.Diagnostics.AddError("reading Kueue's manager", err.Error())
		return
	}
	st.Drift = tfdrift.List(d)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

func (r *kueueInstallResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var st kueueInstallModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := st.Timeouts.Delete(ctx, defaultInstallTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, h, ok := r.connect(ctx, &st, &resp.Diagnostics)
	if !ok {
		return
	}
	// Uninstalling Kueue deletes its CRDs, and with them every queue and workload on the cluster, whichever state
	// they belong to: refuse, before anything is deleted, while any remain.
	if inUse, err := kueueInUse(ctx, c); err != nil || inUse != "" {
		msg := fmt.Sprintf("Nothing was uninstalled: Kueue on %s still serves %s. Uninstalling it would delete them with its CRDs; "+
			"destroy those queues and jobs first (they may be in other Terraform states), then destroy again.", c.Host, inUse)
		if err != nil {
			msg = err.Error()
		}
		resp.Diagnostics.AddError("uninstalling Kueue's helm release", msg)
		return
	}
	if err := h.Uninstall(st.ReleaseName.ValueString(), timeout); err != nil {
		resp.Diagnostics.AddError("uninstalling Kueue's helm release", err.Error())
		return
	}
	created, d := req.Private.GetKey(ctx, privateCreatedNamespace)
	resp.Diagnostics.Append(d...)
	if len(created) == 0 {
		return
	}
	ns := st.Namespace.ValueString()
	if err := kube.DeleteAndWait(ctx, func(ctx context.Context) error { return c.Core.Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}) },
		func(ctx context.Context) error {
			_, err := c.Core.Namespaces().Get(ctx, ns, metav1.GetOptions{})
			return err
		}, timeout); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting namespace %s, which the Kueue install made", ns), err.Error())
	}
}

func (r *kueueInstallResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importID, diags := kueueInstallIdentity.ImportID(ctx, req)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	defer kueueInstallIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	st := kueueInstallModel{Timeouts: tfvalue.TimeoutsNull(), Wait: types.BoolValue(true), Chart: types.StringValue(defaultKueueChart),
		Values: types.StringNull(), Cluster: types.StringNull(), Project: types.StringNull(), Location: types.StringNull(),
		FeatureGates: types.MapNull(types.BoolType), Drift: types.ListNull(types.StringType)}
	id := importID
	var rest string
	var err error
	st.Cluster, st.Project, st.Location, rest, err = clusterscope.Import(id, "/helmReleases/", "NAMESPACE/NAME", r.clients)
	if err != nil {
		resp.Diagnostics.AddError("importing Kueue install", err.Error())
		return
	}
	ns, name, ok := strings.Cut(rest, "/")
	if !ok {
		resp.Diagnostics.AddError("importing Kueue install", fmt.Sprintf("id %q must end with NAMESPACE/NAME", id))
		return
	}
	st.ID, st.Namespace, st.ReleaseName = types.StringValue(id), types.StringValue(ns), types.StringValue(name)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

func (r *kueueInstallResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	var ns, name, values types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("namespace"), &ns)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("release_name"), &name)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("values"), &values)...)
	if resp.Diagnostics.HasError() {
		return
	}
	suffix, kubeID := "", ""
	if !ns.IsUnknown() && !name.IsUnknown() {
		kubeID = ns.ValueString() + "/" + name.ValueString()
		suffix = "helmReleases/" + kubeID
	}
	clusterscope.Plan(ctx, r.clients, req, resp, suffix, kubeID)
	if !req.State.Raw.IsNull() && tfdrift.PlanRepair(ctx, req, resp) {
		// The repair is a `helm upgrade`: a new revision, whose status Helm sets.
		resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, "revision", types.Int64Unknown())...)
		resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, "status", types.StringUnknown())...)
		// A local chart edited since the last apply brings its own versions.
		resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, "app_version", types.StringUnknown())...)
		var chartVersion types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("chart_version"), &chartVersion)...)
		if chartVersion.IsNull() {
			resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, "chart_version", types.StringUnknown())...)
		}
	}
	if !values.IsUnknown() {
		if _, err := releaseValues(&kueueInstallModel{Values: values, FeatureGates: types.MapNull(types.BoolType)}); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("values"), "Unreadable values", err.Error())
		}
	}
}
