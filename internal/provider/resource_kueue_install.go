//go:build !nohelm

package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"helm.sh/helm/v3/pkg/release"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/helm"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/validators"
)

var (
	_ resource.ResourceWithConfigure   = (*kueueInstallResource)(nil)
	_ resource.ResourceWithImportState = (*kueueInstallResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*kueueInstallResource)(nil)
)

// The tutorial installs Kueue's chart from here; a local chart path works the same.
const defaultKueueChart = "oci://registry.k8s.io/kueue/charts/kueue"

func NewKueueInstallResource() resource.Resource { return &kueueInstallResource{} }

type kueueInstallResource struct {
	clients clients
}

type kueueInstallModel struct {
	ID           types.String   `tfsdk:"id"`
	Cluster      types.String   `tfsdk:"cluster"`
	Project      types.String   `tfsdk:"project"`
	Location     types.String   `tfsdk:"location"`
	ReleaseName  types.String   `tfsdk:"release_name"`
	Namespace    types.String   `tfsdk:"namespace"`
	Chart        types.String   `tfsdk:"chart"`
	ChartVersion types.String   `tfsdk:"chart_version"`
	FeatureGates types.Map      `tfsdk:"feature_gates"`
	Values       types.String   `tfsdk:"values"`
	Wait         types.Bool     `tfsdk:"wait"`
	Status       types.String   `tfsdk:"status"`
	Revision     types.Int64    `tfsdk:"revision"`
	AppVersion   types.String   `tfsdk:"app_version"`
	Timeouts     timeouts.Value `tfsdk:"timeouts"`
}

func (r *kueueInstallResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_kueue_install"
}

func (r *kueueInstallResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Kueue, installed or upgraded as the tutorial's `helm install kueue oci://registry.k8s.io/kueue/charts/kueue " +
			"--namespace kueue-system --create-namespace --set controllerManager.featureGates[0].name=ElasticJobsViaWorkloadSlices ...` " +
			"does, through the Helm SDK: a real Helm release that `helm list` shows. Destroy uninstalls it; the chart's CRDs go " +
			"with it, and with them every Kueue object (queues, workloads) on the cluster.",
		Attributes: withClusterScope(map[string]schema.Attribute{
			"id":            schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}, MarkdownDescription: "`projects/P/locations/L/clusters/C/helmReleases/NAMESPACE/NAME`, or `NAMESPACE/NAME` with a provider `kubernetes` block."},
			"release_name":  schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("kueue"), PlanModifiers: replace, Validators: []validator.String{validators.DNSLabel()}, MarkdownDescription: "Helm release name (default `kueue`)."},
			"namespace":     schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("kueue-system"), PlanModifiers: replace, Validators: []validator.String{validators.DNSLabel()}, MarkdownDescription: "Namespace, created if missing (default `kueue-system`)."},
			"chart":         schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(defaultKueueChart), MarkdownDescription: "The chart: an `oci://` reference (default Kueue's) or a local chart folder or `.tgz` (e.g. the `charts/kueue` folder of a Kueue source tree)."},
			"chart_version": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Chart version to pull from an `oci://` chart (e.g. `0.17.0`); the installed chart's version after apply."},
			"feature_gates": schema.MapAttribute{Optional: true, Computed: true, ElementType: types.BoolType,
				Default:             mapdefault.StaticValue(types.MapValueMust(types.BoolType, map[string]attr.Value{"ElasticJobsViaWorkloadSlices": types.BoolValue(true)})),
				MarkdownDescription: "Kueue feature gates (`controllerManager.featureGates`); default `{ ElasticJobsViaWorkloadSlices = true }`, the tutorial's."},
			"values": schema.StringAttribute{Optional: true, MarkdownDescription: "Extra chart values as YAML (e.g. `yamlencode({...})`); `feature_gates` wins for `controllerManager.featureGates`."},
			"wait": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Wait until Kueue can serve: its controller Deployment available and its webhook answering (users meet \"webhook not ready\" right after an install otherwise)."},
			"status":      schema.StringAttribute{Computed: true, MarkdownDescription: "Helm's status of the release (`deployed`, ...)."},
			"revision":    schema.Int64Attribute{Computed: true, MarkdownDescription: "The release's revision."},
			"app_version": schema.StringAttribute{Computed: true, MarkdownDescription: "Kueue's version in the chart."},
			"timeouts":    timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		}, false, "Kueue install (whose destroy removes Kueue's CRDs, queues and workloads)"),
	}
}

func (r *kueueInstallResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = providerClients(req.ProviderData, &resp.Diagnostics)
}

func (r *kueueInstallResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.apply(ctx, req.Plan.Get, &resp.State, resp.Private, &resp.Diagnostics, true)
}

func (r *kueueInstallResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.apply(ctx, req.Plan.Get, &resp.State, nil, &resp.Diagnostics, false)
}

// privateCreatedNamespace records that the install made its namespace, so that destroy removes it again (and only then).
const privateCreatedNamespace = "created_namespace"

type stateSetter interface {
	Set(context.Context, any) diag.Diagnostics
}

// apply installs (create) or upgrades (update) the release, then waits for Kueue if asked to.
func (r *kueueInstallResource) apply(ctx context.Context, get func(context.Context, any) diag.Diagnostics, state stateSetter, private privateState, diags *diag.Diagnostics, create bool) {
	var plan kueueInstallModel
	diags.Append(get(ctx, &plan)...)
	if diags.HasError() {
		return
	}
	var timeout time.Duration
	var d diag.Diagnostics
	if create {
		timeout, d = plan.Timeouts.Create(ctx, defaultKueueTimeout)
	} else {
		timeout, d = plan.Timeouts.Update(ctx, defaultKueueTimeout)
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
		if _, nerr := c.Core.Namespaces().Get(ctx, plan.Namespace.ValueString(), metav1.GetOptions{}); apierrors.IsNotFound(nerr) && private != nil {
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
		diags.Append(state.Set(ctx, &plan)...)
	}
	if err != nil {
		diags.AddError(fmt.Sprintf("installing Kueue (helm release %s/%s)", plan.Namespace.ValueString(), name), err.Error())
		return
	}
	if plan.Wait.ValueBool() {
		if err := waitKueueReady(ctx, c, plan.Namespace.ValueString(), name); err != nil {
			diags.AddError(fmt.Sprintf("waiting for Kueue (helm release %s/%s) to serve", plan.Namespace.ValueString(), name), err.Error())
		}
	}
}

func (r *kueueInstallResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var st kueueInstallModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if _, ok := kubeForRead(ctx, r.clients, st.Cluster, st.Project, st.Location, resp); !ok {
		return
	}
	_, h, ok := r.connect(ctx, &st, &resp.Diagnostics)
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
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

func (r *kueueInstallResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var st kueueInstallModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := st.Timeouts.Delete(ctx, defaultKueueTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, h, ok := r.connect(ctx, &st, &resp.Diagnostics)
	if !ok {
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
	if err := deleteAndWait(ctx, func(ctx context.Context) error { return c.Core.Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}) },
		func(ctx context.Context) error {
			_, err := c.Core.Namespaces().Get(ctx, ns, metav1.GetOptions{})
			return err
		}, timeout); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting namespace %s, which the Kueue install made", ns), err.Error())
	}
}

func (r *kueueInstallResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	st := kueueInstallModel{Timeouts: timeoutsNull(), Wait: types.BoolValue(true), Chart: types.StringValue(defaultKueueChart),
		Values: types.StringNull(), Cluster: types.StringNull(), Project: types.StringNull(), Location: types.StringNull(),
		FeatureGates: types.MapNull(types.BoolType)}
	id := req.ID
	var rest string
	var err error
	st.Cluster, st.Project, st.Location, rest, err = scopedImport(id, "/helmReleases/", "NAMESPACE/NAME", r.clients)
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
	planClusterScope(ctx, r.clients, req, resp, suffix, kubeID)
	if !values.IsUnknown() {
		if _, err := releaseValues(&kueueInstallModel{Values: values, FeatureGates: types.MapNull(types.BoolType)}); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("values"), "Unreadable values", err.Error())
		}
	}
}

func (r *kueueInstallResource) connect(ctx context.Context, m *kueueInstallModel, diags *diag.Diagnostics) (*kube.Clients, *helm.Client, bool) {
	c, ok := kubeFor(ctx, r.clients, m.Cluster, m.Project, m.Location, diags)
	if !ok {
		return nil, nil, false
	}
	h, err := helm.New(c.Config, m.Namespace.ValueString(), func(line string) { tflog.Debug(ctx, line) })
	if err != nil {
		diags.AddError("connecting Helm to the cluster", err.Error())
		return nil, nil, false
	}
	return c, h, true
}

// releaseValues are the chart values: the extra YAML, with the feature gates as the tutorial's --set makes them.
func releaseValues(m *kueueInstallModel) (map[string]any, error) {
	values := map[string]any{}
	if s := m.Values.ValueString(); s != "" {
		if err := yaml.Unmarshal([]byte(s), &values); err != nil {
			return nil, fmt.Errorf("values is not YAML: %w", err)
		}
	}
	cm, _ := values["controllerManager"].(map[string]any)
	if cm == nil {
		cm = map[string]any{}
	}
	var gates []any
	names := make([]string, 0, len(m.FeatureGates.Elements()))
	for n := range m.FeatureGates.Elements() {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v, _ := m.FeatureGates.Elements()[n].(types.Bool)
		gates = append(gates, map[string]any{"name": n, "enabled": v.ValueBool()})
	}
	cm["featureGates"] = gates
	values["controllerManager"] = cm
	return values, nil
}

// flattenRelease reads what the release says back: the feature gates its values carry (a `helm upgrade --set` by
// hand shows as drift), the chart version and the status.
func flattenRelease(m *kueueInstallModel, rel *release.Release) {
	m.Status = types.StringValue(rel.Info.Status.String())
	m.Revision = types.Int64Value(int64(rel.Version))
	if rel.Chart != nil && rel.Chart.Metadata != nil {
		m.AppVersion = types.StringValue(rel.Chart.Metadata.AppVersion)
		m.ChartVersion = types.StringValue(rel.Chart.Metadata.Version)
	}
	gates := map[string]attr.Value{}
	if cm, ok := rel.Config["controllerManager"].(map[string]any); ok {
		if list, ok := cm["featureGates"].([]any); ok {
			for _, g := range list {
				if e, ok := g.(map[string]any); ok {
					name, _ := e["name"].(string)
					enabled, _ := e["enabled"].(bool)
					gates[name] = types.BoolValue(enabled)
				}
			}
		}
	}
	m.FeatureGates = types.MapValueMust(types.BoolType, gates)
}

// waitKueueReady waits until Kueue can serve: the release's controller Deployment (when Kueue runs in the cluster)
// is available, and a dry-run write passes through Kueue's webhooks.
func waitKueueReady(ctx context.Context, c *kube.Clients, ns, release string) error {
	apps, err := appsv1client.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	deployment := release + "-controller-manager"
	probe := &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "dwsfallback-readiness-probe"}}
	var why string
	for {
		why = ""
		dep, err := apps.Deployments(ns).Get(ctx, deployment, metav1.GetOptions{})
		if err == nil && !deploymentAvailable(dep) {
			why = fmt.Sprintf("Deployment %s/%s is not available yet (%d of %d replicas ready)", ns, deployment, dep.Status.ReadyReplicas, dep.Status.Replicas)
		}
		if why == "" {
			_, err := c.Kueue.KueueV1beta2().ResourceFlavors().Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err == nil {
				return nil
			}
			why = "Kueue's webhook does not answer yet: " + err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("Kueue is not ready on %s: %s", c.Host, why)
		case <-time.After(time.Second):
		}
	}
}

func deploymentAvailable(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
