package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/validators"
)

func (r *clusterResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The tutorial's GKE cluster: a default CPU pool for the Ray heads, image streaming, and the RayOperator " +
			"add-on that runs KubeRay, as `gcloud container clusters create --enable-image-streaming --addons=RayOperator` makes it. " +
			"Its `id` is what the other resources take as `cluster`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				PlanModifiers:       keep,
				MarkdownDescription: "`projects/PROJECT/locations/LOCATION/clusters/NAME`; the import id and the other resources' `cluster`.",
			},
			"name": schema.StringAttribute{
				Required:            true,
				PlanModifiers:       replace,
				Validators:          []validator.String{validators.GKEName("cluster")},
				MarkdownDescription: "Cluster name, e.g. `tpu-cluster`.",
			},
			"project": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
				MarkdownDescription: "Project; defaults to the provider's.",
			},
			"location": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
				MarkdownDescription: "Zone or region, e.g. `us-east5-b`; defaults to the provider's.",
			},
			"kubernetes_version": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString("1.34"),
				MarkdownDescription: "Kubernetes version or prefix (`1.34` takes the newest 1.34 patch GKE offers; default `1.34`). Raising it upgrades the control plane in place.",
			},
			"resolved_version": schema.StringAttribute{
				Computed:            true,
				PlanModifiers:       keep,
				MarkdownDescription: "The control plane's exact version, e.g. `1.34.1-gke.1829001`.",
			},
			"default_pool_machine_type": schema.StringAttribute{
				Optional:      true,
				Computed:      true,
				Default:       stringdefault.StaticString("n2-standard-16"),
				PlanModifiers: replace,
				MarkdownDescription: "Machine type of `default-pool`, where Ray heads run (default `n2-standard-16`, as in the tutorial). Changing it replaces the cluster. " +
					"The live pool is compared in `drift`; a pool made again by hand with another machine type is made again as configured, not the cluster. " +
					"If `default-pool` is deleted by hand (some teams move heads to pools of their own), that is not drift: " +
					"making it again would cost nodes nobody asked for, and making the cluster again would delete everything on it.",
			},
			"default_pool_node_count": schema.Int64Attribute{
				Optional:      true,
				Computed:      true,
				Default:       int64default.StaticInt64(3),
				Validators:    []validator.Int64{int64validator.AtLeast(1)},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
				MarkdownDescription: "Nodes of `default-pool` when the cluster is made (default 3, gcloud's); compared in `drift` as GKE's `initialNodeCount`, so a later " +
					"`gcloud container clusters resize` is not drift. Changing it replaces the cluster.",
			},
			"image_streaming": schema.BoolAttribute{
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(true),
				MarkdownDescription: "Image streaming (`gcfsConfig`) for new pools; speeds up the large Ray images. Updated in place.",
			},
			"ray_operator": schema.BoolAttribute{
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(true),
				MarkdownDescription: "The RayOperator add-on (KubeRay managed by GKE). Updated in place.",
			},
			"release_channel": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString("REGULAR"),
				Validators:          []validator.String{stringvalidator.OneOf("UNSPECIFIED", "RAPID", "REGULAR", "STABLE", "EXTENDED")},
				MarkdownDescription: "Release channel (default `REGULAR`, GKE's). Updated in place.",
			},
			"labels": schema.MapAttribute{
				Optional:            true,
				ElementType:         types.StringType,
				MarkdownDescription: "Resource labels of the cluster. Updated in place.",
			},
			"deletion_protection": schema.BoolAttribute{
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(true),
				MarkdownDescription: "While true (the default), destroy refuses to delete the cluster: set it false and apply first. Terraform-side only.",
			},
			"endpoint": schema.StringAttribute{
				Computed:            true,
				PlanModifiers:       keep,
				MarkdownDescription: "The Kubernetes API address.",
			},
			"ca_certificate": schema.StringAttribute{
				Computed:            true,
				PlanModifiers:       keep,
				MarkdownDescription: "The cluster CA, base64 PEM as GKE reports it.",
			},
			"status": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "GKE's status of the cluster.",
			},
			"drift": schema.ListAttribute{
				Computed:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Every field of the cluster's create request, as GKE makes it, that differs on the live cluster now, in GKE's field names: " +
					"`Cluster/NAME .path` (e.g. `.addonsConfig.rayOperatorConfig.enabled`) or `NodePool/default-pool .path`, " +
					"changed by gcloud, the console or any other API client. The version is compared by `kubernetes_version`, the other pools by their own resources. " +
					"A non-empty list plans an update: add-ons, image streaming, the release channel and labels are set again; the default pool's auto-repair, " +
					"auto-upgrade and upgrade settings are set again in place, and a default pool changed where only a new pool can differ is made again. " +
					"It is empty after each apply.",
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}
