package poolpair

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/validators"
)

func tpuPairAttributes() map[string]schema.Attribute {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	return map[string]schema.Attribute{
		"machine_type": schema.StringAttribute{
			Required: true,
			MarkdownDescription: "TPU machine type of both pools, e.g. `ct6e-standard-4t` (TPU v6e, 4 chips per node) or `tpu7x-standard-4t` (TPU7x). " +
				"A type the provider does not know yet is not refused: the plan warns, `tpu_accelerator` and `chips_per_node` must be set, and GKE decides. Changing it replaces both pools.",
			Validators:    []validator.String{validators.TPUMachineType()},
			PlanModifiers: replace,
		},
		"tpu_topology": schema.StringAttribute{
			Required:            true,
			MarkdownDescription: "TPU slice topology of both pools, e.g. `4x4` (16 chips: 4 nodes of `ct6e-standard-4t`) or `2x2x2` (TPU7x, 2 nodes). Must fit the machine type. Changing it replaces both pools.",
			Validators:          []validator.String{validators.TPUTopology()},
			PlanModifiers:       replace,
		},
		"placement_policy": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Name of the Compute Engine workload policy both pools are placed by (`--placement-policy`). GKE requires one for a multi-host TPU7x slice: " +
				"`gcloud compute resource-policies create workload-policy NAME --type=HIGH_THROUGHPUT --accelerator-topology=TOPOLOGY`, with the pools' `tpu_topology`. Changing it replaces both pools.",
			PlanModifiers: replace,
		},
		"tpu_accelerator": schema.StringAttribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: "Value of the `cloud.google.com/gke-tpu-accelerator` node label, e.g. `tpu-v6e-slice`, for RayJob node selectors. " +
				"Derived from a known machine type; set it only for a type the provider does not know yet.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(replaceStringIfSet, replaceIfSetDesc, replaceIfSetDesc)},
		},
		"chips_per_node": schema.Int64Attribute{
			Optional:            true,
			Computed:            true,
			MarkdownDescription: "TPU chips on each node (`google.com/tpu` per host). Derived from a known machine type; set it only for a type the provider does not know yet.",
			PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplaceIf(replaceInt64IfSet, replaceIfSetDesc, replaceIfSetDesc)},
		},
		"nodes_per_slice": schema.Int64Attribute{
			Computed:            true,
			MarkdownDescription: "Nodes in one slice of `tpu_topology` (a RayJob worker group's `numOfHosts`).",
		},
		"max_chips": schema.Int64Attribute{
			Computed:            true,
			MarkdownDescription: "TPU chips of each plan at `max_nodes`, over its `slices` pools: the most a Kueue flavor's `google.com/tpu` quota can use (`tostring(max_chips)`). Per zone: a single-host pool in several `node_locations` can reach this many chips in each.",
		},
		"on_demand_pools": schema.ListAttribute{
			Computed:            true,
			ElementType:         types.StringType,
			MarkdownDescription: "Names of plan A's pools, one per slice: `on_demand.name`, then `NAME-2` to `NAME-N` (for a ComputeClass's `nodepools`).",
		},
		"flex_start_pools": schema.ListAttribute{
			Computed:            true,
			ElementType:         types.StringType,
			MarkdownDescription: "Names of plan B's pools, one per slice: `flex_start.name`, then `NAME-2` to `NAME-N`.",
		},
		"slices": schema.Int64Attribute{
			Optional:   true,
			Computed:   true,
			Default:    int64default.StaticInt64(1),
			Validators: []validator.Int64{int64validator.Between(1, 64)},
			MarkdownDescription: "Multi-host slices of each plan (default 1). GKE's multi-host slice pool holds one slice, so each plan gets this many pools: " +
				"its `name`, then `NAME-2` to `NAME-N`. With more than one, every pool of a plan carries the node label `dwsfallback/slice-group = NAME`, " +
				"which `node_labels` then lists in place of the pool's own, so one Kueue flavor takes them all. Changed in place: pools are added or removed.",
		},
		"chips_per_slice": schema.Int64Attribute{
			Computed:            true,
			MarkdownDescription: "TPU chips in one slice.",
		},
	}
}
