package computeclass

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/validators"
)

var (
	classTPUTypes = map[string]attr.Type{"type": types.StringType, "count": types.Int64Type, "topology": types.StringType}
	classGPUTypes = map[string]attr.Type{"type": types.StringType, "count": types.Int64Type, "driver_version": types.StringType}
)

func (r *computeClassResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A GKE custom ComputeClass (`cloud.google.com/v1`, kind `ComputeClass`): node configurations the " +
			"cluster autoscaler tries in order, moving on to the next priority when one cannot get capacity. Plan A's pool, " +
			"then plan B's flex-start pool, is two lines of `priorities`. Pools that a priority names must carry the class's " +
			"label and taint: set `compute_class` on the pool pair. Created and updated whole (field manager " +
			"`terraform-provider-dwsfallback`): the spec is the provider's, so a change by hand to what it manages shows in the plan, " +
			"and fields it does not manage (e.g. `nodeLabels`, `location`) are removed by the next update.",
		Attributes: clusterscope.With(map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "`projects/P/locations/L/clusters/C/computeClasses/NAME`, or `NAME` when the provider has a `kubernetes` block; the import id.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:            true,
				Validators:          []validator.String{validators.DNSLabel()},
				MarkdownDescription: "Name of the ComputeClass, which pods select with `nodeSelector: {cloud.google.com/compute-class: NAME}`. GKE refuses names that begin with `gke` or `autopilot`.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"description": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "`spec.description`.",
			},
			"priorities": schema.ListNestedAttribute{
				Required:            true,
				Validators:          []validator.List{listvalidator.SizeBetween(1, 1000)},
				MarkdownDescription: "`spec.priorities`, most preferred first. Each is either `nodepools` (existing pools, alone) or a description of nodes.",
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"nodepools": schema.ListAttribute{
							Optional:            true,
							ElementType:         types.StringType,
							Validators:          []validator.List{listvalidator.SizeAtLeast(1)},
							MarkdownDescription: "Existing node pools, e.g. `[dwsfallback_tpu_pool_pair.pools.on_demand.name]`. GKE takes them in no particular order. Cannot be combined with the other fields.",
						},
						"machine_family": schema.StringAttribute{
							Optional:            true,
							Validators:          []validator.String{stringvalidator.LengthAtMost(10)},
							MarkdownDescription: "Compute Engine machine family, e.g. `n2`. Not with `machine_type`.",
						},
						"machine_type": schema.StringAttribute{
							Optional:            true,
							Validators:          []validator.String{stringvalidator.LengthAtMost(100)},
							MarkdownDescription: "Compute Engine machine type, e.g. `ct6e-standard-4t`. Not with `machine_family`, `min_cores` or `min_memory_gb`.",
						},
						"min_cores": schema.Int64Attribute{
							Optional:            true,
							Validators:          []validator.Int64{int64validator.AtLeast(0)},
							MarkdownDescription: "Minimum vCPUs of a node.",
						},
						"min_memory_gb": schema.Int64Attribute{
							Optional:            true,
							Validators:          []validator.Int64{int64validator.AtLeast(0)},
							MarkdownDescription: "Minimum memory of a node, in GB.",
						},
						"spot": schema.BoolAttribute{
							Optional:            true,
							MarkdownDescription: "Spot VMs. Incompatible with `flex_start`.",
						},
						"flex_start": schema.BoolAttribute{
							Optional:            true,
							MarkdownDescription: "`flexStart.enabled`: flex-start VMs (at most 7 days each). Incompatible with `spot`.",
						},
						"tpu": schema.SingleNestedAttribute{
							Optional:            true,
							MarkdownDescription: "TPU nodes: `type` (the accelerator, e.g. `tpu-v6e-slice`), `count` (chips per node) and `topology`, all three, consistent with GKE's TPU machine types.",
							Attributes: map[string]schema.Attribute{
								"type": schema.StringAttribute{
									Required:            true,
									MarkdownDescription: "TPU accelerator, the `cloud.google.com/gke-tpu-accelerator` node label, e.g. `tpu-v6e-slice`.",
								},
								"count": schema.Int64Attribute{
									Required:            true,
									Validators:          []validator.Int64{int64validator.AtLeast(1)},
									MarkdownDescription: "TPU chips per node, e.g. `4`.",
								},
								"topology": schema.StringAttribute{
									Required:            true,
									MarkdownDescription: "TPU topology of the slice, e.g. `4x4`.",
								},
							},
						},
						"gpu": schema.SingleNestedAttribute{
							Optional:            true,
							MarkdownDescription: "GPU nodes.",
							Attributes: map[string]schema.Attribute{
								"type": schema.StringAttribute{
									Required:            true,
									MarkdownDescription: "GPU accelerator, e.g. `nvidia-h100-80gb`.",
								},
								"count": schema.Int64Attribute{
									Required:            true,
									Validators:          []validator.Int64{int64validator.AtLeast(1)},
									MarkdownDescription: "GPUs per node.",
								},
								"driver_version": schema.StringAttribute{
									Optional:            true,
									Computed:            true,
									Default:             stringdefault.StaticString("default"),
									Validators:          []validator.String{stringvalidator.OneOf("default", "latest", "autoinstall-disabled")},
									MarkdownDescription: "`default` (GKE's default), `latest` or `autoinstall-disabled`.",
								},
							},
						},
						"reservation_affinity": schema.StringAttribute{
							Optional:            true,
							Validators:          []validator.String{stringvalidator.OneOf("AnyBestEffort", "None", "AnyThenFail")},
							MarkdownDescription: "`reservations.affinity`: `AnyBestEffort`, `None` or `AnyThenFail`. (Specific reservations are not managed here.)",
						},
						"max_run_duration_seconds": schema.Int64Attribute{
							Optional:            true,
							Validators:          []validator.Int64{int64validator.AtLeast(1)},
							MarkdownDescription: "How long a node of this priority may exist, in seconds. Flex-start nodes live at most 7 days (604800).",
						},
						"capacity_check_wait_time_seconds": schema.Int64Attribute{
							Optional:            true,
							Validators:          []validator.Int64{int64validator.Between(1, 86400)},
							MarkdownDescription: "How long GKE tries this priority before the next one, in seconds (1 to 86400). Only for flex-start and multi-host TPU priorities; a flex-start priority waits 15 minutes without it.",
						},
					},
				},
			},
			"when_unsatisfiable": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString("DoNotScaleUp"),
				Validators:          []validator.String{stringvalidator.OneOf("DoNotScaleUp", "ScaleUpAnyway")},
				MarkdownDescription: "What the autoscaler does when no priority can get capacity: `DoNotScaleUp` (GKE's default from 1.33) leaves pods pending; `ScaleUpAnyway` also uses the class's pools that match no priority, or with `node_pool_auto_creation`, default nodes.",
			},
			"node_pool_auto_creation": schema.BoolAttribute{
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
				MarkdownDescription: "`nodePoolAutoCreation.enabled`: GKE may create node pools for the priorities. Default false: only existing pools are scaled.",
			},
			"optimize_rule_priority": schema.BoolAttribute{
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
				MarkdownDescription: "`activeMigration.optimizeRulePriority`: GKE moves workloads to a higher priority's nodes when they become available.",
			},
			"health": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The class's `Health` condition as GKE reports it, e.g. `Crd is healthy.`, followed by what GKE finds wrong with its pools. A create or update waits (up to a minute) for GKE's report on what it wrote, so the next plan does not change it.",
			},
			"drift": schema.ListAttribute{
				Computed:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Every part of the class that differs on the live object now from what the last apply left, as `ComputeClass/NAME .path` " +
					"(e.g. `ComputeClass/tpu-fallback .spec.whenUnsatisfiable`, or `.spec.priorities /0/nodepools` inside the priorities, which the API " +
					"replaces whole). The spec is compared whole, since the provider writes it whole: a field another writer adds to it " +
					"(e.g. `autoscalingPolicy`) is drift, as the next update removes it. A non-empty list plans the update that writes the spec back; " +
					"it is empty after each apply.",
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		}, false, "ComputeClass"),
	}
}
