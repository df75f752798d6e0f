package poolpair

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/validators"
)

func gpuPairAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"machine_type": schema.StringAttribute{
			Required: true,
			MarkdownDescription: "GPU machine type of both pools, e.g. `a3-highgpu-8g` (8 H100), `a4-highgpu-8g` (8 B200) or `g2-standard-24` (2 L4). " +
				"A type the provider does not know yet is not refused: the plan warns, `gpu_type` and `gpus_per_node` must be set, and GKE decides. Changing it replaces both pools.",
			Validators:    []validator.String{validators.GPUMachineType()},
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"gpu_type": schema.StringAttribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: "The `--accelerator type`, and the value of the `cloud.google.com/gke-accelerator` node label, e.g. `nvidia-h100-80gb`. " +
				"Derived from a known machine type; set it only for a type the provider does not know yet.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(replaceStringIfSet, replaceIfSetDesc, replaceIfSetDesc)},
		},
		"gpus_per_node": schema.Int64Attribute{
			Optional:            true,
			Computed:            true,
			Validators:          []validator.Int64{int64validator.Between(1, 16)},
			MarkdownDescription: "GPUs on each node (`--accelerator count`, `nvidia.com/gpu` per node). Derived from a known machine type; set it only for a type the provider does not know yet.",
			PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplaceIf(replaceInt64IfSet, replaceIfSetDesc, replaceIfSetDesc)},
		},
		"gpu_driver_version": schema.StringAttribute{
			Optional:            true,
			Computed:            true,
			Default:             stringdefault.StaticString("default"),
			Validators:          []validator.String{stringvalidator.OneOf("default", "latest", "disabled")},
			MarkdownDescription: "NVIDIA driver GKE installs (`--accelerator gpu-driver-version`): `default`, `latest` (Container-Optimized OS only) or `disabled`. Changing it replaces both pools.",
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"max_gpus": schema.Int64Attribute{
			Computed:            true,
			MarkdownDescription: "GPUs of each pool at `max_nodes`: the most a Kueue flavor's `nvidia.com/gpu` quota can use (`tostring(max_gpus)`). Per zone: a pool in several `node_locations` can reach this many GPUs in each.",
		},
	}
}
