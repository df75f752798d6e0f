package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/validators"
)

var poolNameValidators = []validator.String{validators.GKEName("node pool")}

func (r *tpuPoolPairResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	poolCommon := func(role string) map[string]schema.Attribute {
		return map[string]schema.Attribute{
			"name": schema.StringAttribute{
				Required:            true,
				Validators:          poolNameValidators,
				MarkdownDescription: "Name of the " + role + " node pool. Changing it replaces this pool only.",
			},
			"status": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The pool's status as GKE reports it: `PROVISIONING`, `RUNNING`, `RECONCILING`, `ERROR`, ... A pool in `ERROR` is recreated by the next apply.",
			},
			"node_labels": schema.MapAttribute{
				Computed:            true,
				ElementType:         types.StringType,
				MarkdownDescription: "Labels GKE puts on this pool's nodes that tell it apart (`cloud.google.com/gke-nodepool`, `cloud.google.com/gke-tpu-accelerator`, `cloud.google.com/gke-tpu-topology`), ready for a Kueue ResourceFlavor's `node_labels`. Kueue matches jobs to a flavor only on the labels it lists, so with several pool pairs in one queue the accelerator and topology labels keep each job on its own TPU generation.",
			},
		}
	}
	onDemand := poolCommon("on-demand (plan A)")
	onDemand["reservation_affinity"] = schema.StringAttribute{
		Optional: true,
		Computed: true,
		Default:  stringdefault.StaticString("none"),
		Validators: []validator.String{
			stringvalidator.OneOf("none", "any"),
		},
		MarkdownDescription: "Whether the on-demand pool may consume Compute Engine reservations: `none` (the tutorial's `--reservation-affinity=none`, default) or `any`. Changing it replaces this pool.",
	}
	flex := poolCommon("DWS flex-start (plan B)")
	flex["flex_start_enabled"] = schema.BoolAttribute{
		Computed:            true,
		MarkdownDescription: "`config.flexStart` as GKE reports it: the tutorial's verification step (`node-pools describe --format=\"get(config.flexStart)\"`).",
	}
	flex["queued_provisioning"] = schema.BoolAttribute{
		Computed:            true,
		MarkdownDescription: "`queuedProvisioning.enabled` as GKE reports it.",
	}

	resp.Schema = schema.Schema{
		MarkdownDescription: "Two TPU node pools of one machine type and slice shape on a GKE cluster: plan A on demand " +
			"(no reservations) and plan B provisioned by the Dynamic Workload Scheduler (queued provisioning + flex-start), " +
			"exactly as `gcloud container node-pools create` makes them in the DWS + Kueue fallback tutorial.",
		Attributes: withClusterScope(map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "`projects/PROJECT/locations/LOCATION/clusters/CLUSTER/nodePools/ON_DEMAND,FLEX_START`; the import id.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"machine_type": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "TPU machine type of both pools, e.g. `ct6e-standard-4t` (TPU v6e, 4 chips per node). Changing it replaces both pools.",
				Validators:          []validator.String{validators.TPUMachineType()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"tpu_topology": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "TPU slice topology of both pools, e.g. `4x4` (16 chips: 4 nodes of `ct6e-standard-4t`). Must fit the machine type. Changing it replaces both pools.",
				Validators:          []validator.String{validators.TPUTopology()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"min_nodes": schema.Int64Attribute{
				Optional:            true,
				Computed:            true,
				Default:             int64default.StaticInt64(0),
				Validators:          []validator.Int64{int64validator.AtLeast(0)},
				MarkdownDescription: "Autoscaling minimum of each pool, in nodes (default 0). Queued provisioning needs 0 on the flex-start pool. Updated in place.",
			},
			"max_nodes": schema.Int64Attribute{
				Required:            true,
				Validators:          []validator.Int64{int64validator.Between(1, 1000)},
				MarkdownDescription: "Autoscaling maximum of each pool, in nodes; a multiple of `nodes_per_slice` for multi-host slices. Updated in place.",
			},
			"on_demand": schema.SingleNestedAttribute{
				Required:            true,
				Attributes:          onDemand,
				MarkdownDescription: "Plan A: the on-demand pool (`--reservation-affinity=none` by default).",
			},
			"flex_start": schema.SingleNestedAttribute{
				Required:            true,
				Attributes:          flex,
				MarkdownDescription: "Plan B: the DWS pool (`--enable-queued-provisioning --flex-start`; GKE keeps searching capacity for up to 7 days).",
			},
			"tpu_accelerator": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Value of the `cloud.google.com/gke-tpu-accelerator` node label, e.g. `tpu-v6e-slice`, for RayJob node selectors.",
			},
			"chips_per_node": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: "TPU chips on each node (`google.com/tpu` per host).",
			},
			"nodes_per_slice": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: "Nodes in one slice of `tpu_topology` (a RayJob worker group's `numOfHosts`).",
			},
			"max_chips": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: "TPU chips of each pool at `max_nodes`: the most a Kueue flavor's `google.com/tpu` quota can use (`tostring(max_chips)`), so quotas follow `max_nodes`.",
			},
			"chips_per_slice": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: "TPU chips in one slice.",
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		}, true, "pools"),
	}
}
