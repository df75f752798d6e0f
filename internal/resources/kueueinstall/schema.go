//go:build !nohelm

package kueueinstall

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/validators"
)

func (r *kueueInstallResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Kueue, installed or upgraded as the tutorial's `helm install kueue oci://registry.k8s.io/kueue/charts/kueue " +
			"--namespace kueue-system --create-namespace --set controllerManager.featureGates[0].name=ElasticJobsViaWorkloadSlices ...` " +
			"does, through the Helm SDK: a real Helm release that `helm list` shows. Destroy uninstalls it, and the chart's CRDs go " +
			"with it; so a destroy refuses, before uninstalling anything, while any ClusterQueue or workload remains on the cluster " +
			"(from this state or another), naming them.",
		Attributes: clusterscope.With(map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
				MarkdownDescription: "`projects/P/locations/L/clusters/C/helmReleases/NAMESPACE/NAME`, or `NAMESPACE/NAME` with a provider `kubernetes` block.",
			},
			"release_name": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString("kueue"),
				PlanModifiers:       replace,
				Validators:          []validator.String{validators.DNSLabel()},
				MarkdownDescription: "Helm release name (default `kueue`).",
			},
			"namespace": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString("kueue-system"),
				PlanModifiers:       replace,
				Validators:          []validator.String{validators.DNSLabel()},
				MarkdownDescription: "Namespace, created if missing (default `kueue-system`).",
			},
			"chart": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(defaultKueueChart),
				MarkdownDescription: "The chart: an `oci://` reference (default Kueue's) or a local chart folder or `.tgz` (e.g. the `charts/kueue` folder of a Kueue source tree).",
			},
			"chart_version": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				MarkdownDescription: "Chart version to pull from an `oci://` chart (e.g. `0.17.0`); the installed chart's version after apply.",
			},
			"feature_gates": schema.MapAttribute{
				Optional:            true,
				Computed:            true,
				ElementType:         types.BoolType,
				Default:             mapdefault.StaticValue(types.MapValueMust(types.BoolType, map[string]attr.Value{"ElasticJobsViaWorkloadSlices": types.BoolValue(true)})),
				MarkdownDescription: "Kueue feature gates (`controllerManager.featureGates`); default `{ ElasticJobsViaWorkloadSlices = true }`, the tutorial's.",
			},
			"values": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Extra chart values as YAML (e.g. `yamlencode({...})`); `feature_gates` wins for `controllerManager.featureGates`.",
			},
			"wait": schema.BoolAttribute{
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(true),
				MarkdownDescription: "Wait until Kueue can serve: its controller Deployment available and its webhook answering (users meet \"webhook not ready\" right after an install otherwise).",
			},
			"status": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Helm's status of the release (`deployed`, ...).",
			},
			"revision": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: "The release's revision.",
			},
			"app_version": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Kueue's version in the chart.",
			},
			"drift": schema.ListAttribute{
				Computed:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Every field that the release's manifest sets on Kueue's manager Deployment and its configuration ConfigMap and that differs on the live object now, " +
					"as `Kind/namespace/name .path` (e.g. `Deployment/kueue-system/kueue-controller-manager .spec.replicas`), or the object marked `(deleted)`: " +
					"changed or removed by kubectl or any writer but Helm. A non-empty list plans an update, a `helm upgrade` of the same chart and values, " +
					"whose three-way merge writes those fields back; it is empty after each apply.",
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		}, false, "Kueue install (whose destroy removes Kueue's CRDs, queues and workloads)"),
	}
}
