package poolpair

import (
	"context"
	"maps"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/validators"
)

var (
	poolNameValidators = []validator.String{validators.GKEName("node pool")}
	reservationRE      = regexp.MustCompile(`^(projects/[a-z][-a-z0-9]{4,28}[a-z0-9]/reservations/)?[a-z]([-a-z0-9]*[a-z0-9])?(/reservationBlocks/[a-z0-9][-a-z0-9]*(/reservationSubBlocks/[a-z0-9][-a-z0-9]*)?)?$`)
	runDurationRE      = regexp.MustCompile(`^[1-9][0-9]*s$`)
)

func (r *poolPairResource[M, P]) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
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
				MarkdownDescription: "Labels GKE puts on this pool's nodes that tell it apart, ready for a Kueue ResourceFlavor's `node_labels`: `cloud.google.com/gke-nodepool` and the accelerator's (`cloud.google.com/gke-tpu-accelerator` and `cloud.google.com/gke-tpu-topology` for TPUs, `cloud.google.com/gke-accelerator` for GPUs). Kueue matches jobs to a flavor only on the labels it lists, so with several pool pairs in one queue the accelerator labels keep each job on its own hardware.",
			},
		}
	}
	onDemand := poolCommon("on-demand (plan A)")
	maps.Copy(onDemand, lifecycleAttributes("on-demand (plan A)", true))
	onDemand["max_surge"] = schema.Int64Attribute{
		Optional:            true,
		Computed:            true,
		Default:             int64default.StaticInt64(1),
		Validators:          []validator.Int64{int64validator.Between(0, 100)},
		MarkdownDescription: "Surge upgrades of the on-demand pool: how many nodes GKE adds beyond the pool's size while it upgrades (gcloud's `--max-surge-upgrade`, default 1). GKE keeps it beside `blue_green`, which it then does not use. Updated in place.",
	}
	onDemand["max_unavailable"] = schema.Int64Attribute{
		Optional:            true,
		Computed:            true,
		Default:             int64default.StaticInt64(0),
		Validators:          []validator.Int64{int64validator.Between(0, 100)},
		MarkdownDescription: "Surge upgrades of the on-demand pool: how many nodes may be unavailable at once while it upgrades (gcloud's `--max-unavailable-upgrade`, default 0). Updated in place.",
	}
	onDemand["blue_green"] = blueGreenAttribute()
	onDemand["reservation_affinity"] = schema.StringAttribute{
		Optional: true,
		Computed: true,
		Default:  stringdefault.StaticString("none"),
		Validators: []validator.String{
			stringvalidator.OneOf("none", "any", "specific", reservationAnyThenFail),
		},
		MarkdownDescription: "Whether the on-demand pool consumes Compute Engine reservations, as gcloud's `--reservation-affinity`: `none` (the tutorial's, default), `any` (any matching reservation, else on-demand capacity), `specific` (only the reservation `reservation` names: the pool gets nodes up to the reservation's count, so give the Kueue flavor of this pool a quota no larger) or `" + reservationAnyThenFail + "` (GKE's `ANY_RESERVATION_THEN_FAIL`: any matching reservation that does not require specific targeting, and no node when none has room, never on-demand capacity; gcloud 528 has no flag for it, so the request sets the API field alone). Changing it replaces this pool.",
	}
	onDemand["reservation"] = schema.StringAttribute{
		Optional: true,
		Validators: []validator.String{
			stringvalidator.RegexMatches(reservationRE, "must be a reservation's name, or projects/OWNER_PROJECT/reservations/NAME for a shared one, either optionally followed by /reservationBlocks/BLOCK[/reservationSubBlocks/SUB_BLOCK]"),
		},
		MarkdownDescription: "The reservation plan A consumes when `reservation_affinity` is `specific` (gcloud's `--reservation`): its name, `projects/OWNER_PROJECT/reservations/NAME` for one shared from another project, either optionally followed by `/reservationBlocks/BLOCK` (and `/reservationSubBlocks/SUB_BLOCK`). It must be in the pool's zone and reserve its machine type; a calendar-mode future reservation is named the same way. A plan that makes the pools or changes what they draw reads it (Compute's `reservations.get`, through `compute_endpoint`): one of another machine type, or smaller than one slice, is an error; one smaller than every pool's `max_nodes`, or not found, a warning. Changing it replaces this pool.",
	}
	flex := poolCommon("DWS flex-start (plan B)")
	maps.Copy(flex, lifecycleAttributes("DWS flex-start (plan B)", r.kind.flexAutoRepair))
	flex["provisioning"] = schema.StringAttribute{
		Optional: true,
		Computed: true,
		Default:  stringdefault.StaticString(provisioningFlexStart),
		Validators: []validator.String{
			stringvalidator.OneOf(provisioningFlexStart, provisioningQueued, provisioningUnqueued),
		},
		MarkdownDescription: "How the Dynamic Workload Scheduler provisions this pool: `flex-start` (queued provisioning of flex-start VMs, `--enable-queued-provisioning --flex-start`, the default), `queued` (queued provisioning alone, `--enable-queued-provisioning`) or `flex-start-unqueued` (flex-start VMs without queued provisioning, `--flex-start`: the ordinary autoscaler adds nodes one by one, each for at most 7 days, with no ProvisioningRequest; the plan-B pool of a ComputeClass; TPUs need GKE 1.33.0-gke.1712000 or later). Changing it replaces this pool.",
	}
	flex["max_run_duration"] = schema.StringAttribute{
		Optional: true,
		Validators: []validator.String{
			stringvalidator.RegexMatches(runDurationRE, `must be whole seconds followed by "s", as GKE's API and gcloud's --max-run-duration write it, such as "86400s" (1 day)`),
		},
		MarkdownDescription: "How long each node of plan B runs at most, in seconds followed by `s` (gcloud's `--max-run-duration`, e.g. `86400s`), up to `604800s`: DWS VMs run for at most 7 days anyway, so this only caps cost below that. Unset, nodes run until the job ends or the 7 days do. Set or changed in place; removing it replaces this pool, as GKE's update cannot unset it.",
	}
	flex["flex_start_enabled"] = schema.BoolAttribute{
		Computed:            true,
		MarkdownDescription: "`config.flexStart` as GKE reports it: the tutorial's verification step (`node-pools describe --format=\"get(config.flexStart)\"`).",
	}
	flex["queued_provisioning"] = schema.BoolAttribute{
		Computed:            true,
		MarkdownDescription: "`queuedProvisioning.enabled` as GKE reports it.",
	}

	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "`projects/PROJECT/locations/LOCATION/clusters/CLUSTER/nodePools/ON_DEMAND,FLEX_START`; the import id.",
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"min_nodes": schema.Int64Attribute{
			Optional:            true,
			Computed:            true,
			Default:             int64default.StaticInt64(0),
			Validators:          []validator.Int64{int64validator.AtLeast(0)},
			MarkdownDescription: "Autoscaling minimum of each pool, in nodes (default 0), per zone as GKE counts it when `node_locations` has several. Queued provisioning needs 0 on the flex-start pool. Updated in place.",
		},
		"max_nodes": schema.Int64Attribute{
			Required:            true,
			Validators:          []validator.Int64{int64validator.Between(1, 1000)},
			MarkdownDescription: "Autoscaling maximum of each pool, in nodes, per zone as GKE counts it when `node_locations` has several. A multi-host TPU slice pool holds one slice: its maximum is `nodes_per_slice`, and `slices` gives a plan more. Updated in place.",
		},
		"compute_class": schema.StringAttribute{
			Optional:            true,
			Validators:          []validator.String{validators.DNSLabel()},
			MarkdownDescription: "A GKE ComputeClass both pools join: GKE asks a manually created pool that a class uses for the node label and the taint `cloud.google.com/compute-class=NAME:NoSchedule` (About custom compute classes), and this sets both, as `--node-labels` and `--node-taints` do. A pool belongs to one class at most. Updated in place; removing it takes the pools out of the class.",
		},
		"on_demand": schema.SingleNestedAttribute{
			Required:            true,
			Attributes:          onDemand,
			MarkdownDescription: "Plan A: the on-demand pool (`--reservation-affinity=none` by default).",
		},
		"flex_start": schema.SingleNestedAttribute{
			Required:            true,
			Attributes:          flex,
			MarkdownDescription: "Plan B: the DWS pool (`--enable-queued-provisioning --flex-start` by default; GKE keeps searching capacity for up to 7 days).",
		},
		"drift": schema.ListAttribute{
			Computed:    true,
			ElementType: types.StringType,
			MarkdownDescription: "Every field of either pool's create request (as GKE makes it) that differs on the live pool now, as `NodePool/NAME .path` " +
				"in GKE's field names (e.g. `NodePool/dws-pool .config.machineType`), changed in the console, by `gcloud` or any other API client: it names " +
				"the pool that differs. Lists and maps (OAuth scopes, labels, taints) compare whole. What GKE decides whatever was asked (the " +
				"upgrade settings of a flex-start or queued pool, whose upgrades are short-lived) is not drift. A non-empty list plans an update: autoscaling, " +
				"management, upgrade settings, node labels, taints and the run limit are set in place; any other field only a new pool can set, so that pool " +
				"(not the other one) is deleted and created again, and the plan warns which. It is empty after each apply.",
		},
		"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
	}
	for k, v := range nodeSettingsAttributes() {
		attrs[k] = v
	}
	for k, v := range r.kind.attributes() {
		attrs[k] = v
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: r.kind.description,
		Attributes:          clusterscope.With(attrs, true, "pools"),
	}
}

// An imported pool of a machine type the provider does not know has no value in state for what the configuration
// tells: filling it in is not a change of the pools.
const replaceIfSetDesc = "Changing it replaces both pools."

func replaceStringIfSet(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull()
}

func replaceInt64IfSet(_ context.Context, req planmodifier.Int64Request, resp *int64planmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull()
}
