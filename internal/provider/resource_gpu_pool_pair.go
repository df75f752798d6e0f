package provider

import (
	"fmt"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/validators"
)

// A GPU pair is its own resource, not a TPU pair with an accelerator block: what a TPU pair is about (topology,
// slices, workload policy) means nothing for GPUs, and GPUs bring their own (driver, autorepair, total bounds).
type gpuPoolPairResource = poolPairResource[gpuPoolPairModel, *gpuPoolPairModel]

var (
	_ resource.ResourceWithConfigure      = (*gpuPoolPairResource)(nil)
	_ resource.ResourceWithImportState    = (*gpuPoolPairResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*gpuPoolPairResource)(nil)
	_ resource.ResourceWithValidateConfig = (*gpuPoolPairResource)(nil)
)

// The node label and resource of GPU nodes (GKE "About GPUs in GKE").
const (
	gpuAcceleratorLabel = "cloud.google.com/gke-accelerator"
	gpuResource         = "nvidia.com/gpu"
)

func NewGPUPoolPairResource() resource.Resource {
	return &gpuPoolPairResource{kind: pairKind{
		name: "gpu_pool_pair", noun: "GPU", attributes: gpuPairAttributes,
		description: "Two GPU node pools of one machine type on a GKE cluster: plan A on demand (no reservations) and plan B " +
			"provisioned by the Dynamic Workload Scheduler (queued provisioning, with flex-start by default), as GKE's " +
			"\"Run a large-scale workload with flex-start with queued provisioning\" creates it with `gcloud container node-pools create` " +
			"(`--location-policy=ANY --reservation-affinity=none --no-enable-autorepair`).",
	}}
}

type gpuPoolPairModel struct {
	poolPairModel
	GPUType          types.String `tfsdk:"gpu_type"`
	GPUsPerNode      types.Int64  `tfsdk:"gpus_per_node"`
	GPUDriverVersion types.String `tfsdk:"gpu_driver_version"`
	MaxGPUs          types.Int64  `tfsdk:"max_gpus"`
}

func (m *gpuPoolPairModel) pair() *poolPairModel { return &m.poolPairModel }

// gpuDriverVersions maps gcloud's gpu-driver-version values to the API's.
var gpuDriverVersions = map[string]containerpb.GPUDriverInstallationConfig_GPUDriverVersion{
	"default":  containerpb.GPUDriverInstallationConfig_DEFAULT,
	"latest":   containerpb.GPUDriverInstallationConfig_LATEST,
	"disabled": containerpb.GPUDriverInstallationConfig_INSTALLATION_DISABLED,
}

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
			MarkdownDescription: "GPUs of each pool at `max_nodes`: the most a Kueue flavor's `nvidia.com/gpu` quota can use (`tostring(max_gpus)`).",
		},
	}
}

// expandKind adds the GPUs, and for plan B what GKE's DWS page asks of a queued-provisioning GPU pool: bounds over
// all zones with location policy ANY, and no auto-repair, which could disrupt workloads on repaired nodes.
func (m *gpuPoolPairModel) expandKind(role poolRole, np *containerpb.NodePool) {
	driver := gpuDriverVersions[m.GPUDriverVersion.ValueString()]
	np.Config.Accelerators = []*containerpb.AcceleratorConfig{{
		AcceleratorCount:            m.GPUsPerNode.ValueInt64(),
		AcceleratorType:             m.GPUType.ValueString(),
		GpuDriverInstallationConfig: &containerpb.GPUDriverInstallationConfig{GpuDriverVersion: &driver},
	}}
	if !role.flex {
		return
	}
	// Plan B's reservation affinity is sent, as gcloud does for --reservation-affinity=none.
	np.Config.ReservationAffinity = &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_NO_RESERVATION}
	np.Autoscaling = &containerpb.NodePoolAutoscaling{
		Enabled:           true,
		TotalMinNodeCount: np.Autoscaling.MinNodeCount,
		TotalMaxNodeCount: np.Autoscaling.MaxNodeCount,
		LocationPolicy:    containerpb.NodePoolAutoscaling_ANY,
	}
	np.Management.AutoRepair = false
}

func (m *gpuPoolPairModel) flattenKind(np *containerpb.NodePool) {
	accs := np.GetConfig().GetAccelerators()
	if len(accs) == 0 {
		m.GPUType, m.GPUsPerNode = types.StringValue(""), types.Int64Value(0)
		return
	}
	a := accs[0]
	m.GPUType, m.GPUsPerNode = types.StringValue(a.GetAcceleratorType()), types.Int64Value(a.GetAcceleratorCount())
	for name, v := range gpuDriverVersions {
		if a.GetGpuDriverInstallationConfig().GetGpuDriverVersion() == v {
			m.GPUDriverVersion = types.StringValue(name)
		}
	}
}

func (m *gpuPoolPairModel) incompatible(have, want *containerpb.NodePool) string {
	h, w := have.GetConfig().GetAccelerators(), want.GetConfig().GetAccelerators()
	if len(h) != 1 || h[0].GetAcceleratorType() != w[0].GetAcceleratorType() || h[0].GetAcceleratorCount() != w[0].GetAcceleratorCount() {
		return fmt.Sprintf("has GPUs %s, not %d x %s", describeGPUs(h), w[0].GetAcceleratorCount(), w[0].GetAcceleratorType())
	}
	return ""
}

func describeGPUs(accs []*containerpb.AcceleratorConfig) string {
	if len(accs) == 0 {
		return "none"
	}
	var parts []string
	for _, a := range accs {
		parts = append(parts, fmt.Sprintf("%d x %s", a.GetAcceleratorCount(), a.GetAcceleratorType()))
	}
	return strings.Join(parts, ", ")
}

func (m *gpuPoolPairModel) derive() {
	if known(m.MachineType) {
		if g, ok := catalog.LookupGPU(m.MachineType.ValueString()); ok {
			m.GPUType, m.GPUsPerNode = types.StringValue(g.Accelerator), types.Int64Value(int64(g.Count))
		}
	}
	pending := !known(m.MachineType) || m.GPUType.IsUnknown() || m.GPUsPerNode.IsUnknown()
	switch {
	case pending || m.MaxNodes.IsUnknown():
		m.MaxGPUs = types.Int64Unknown()
	case m.GPUsPerNode.IsNull() || m.MaxNodes.IsNull():
		m.MaxGPUs = types.Int64Null()
	default:
		m.MaxGPUs = types.Int64Value(m.MaxNodes.ValueInt64() * m.GPUsPerNode.ValueInt64())
	}
	if !pending {
		if m.GPUType.IsUnknown() {
			m.GPUType = types.StringNull()
		}
		if m.GPUsPerNode.IsUnknown() {
			m.GPUsPerNode = types.Int64Null()
		}
	}
}

func (m *gpuPoolPairModel) labels(pool types.String) types.Map {
	if pool.IsUnknown() || m.GPUType.IsUnknown() {
		return types.MapUnknown(types.StringType)
	}
	return gpuNodeLabels(pool.ValueString(), m.GPUType.ValueString())
}

func (m *gpuPoolPairModel) liveLabels(np *containerpb.NodePool) types.Map {
	if np == nil {
		return types.MapNull(types.StringType)
	}
	gpu := ""
	if accs := np.GetConfig().GetAccelerators(); len(accs) > 0 {
		gpu = accs[0].GetAcceleratorType()
	}
	return gpuNodeLabels(np.GetName(), gpu)
}

// gpuNodeLabels are the pool label and the accelerator label GKE gives a GPU pool's nodes: with both, a Kueue
// flavor keeps jobs asking for one GPU type off another's nodes.
func gpuNodeLabels(pool, gpu string) types.Map {
	labels := map[string]attr.Value{gkeNodePoolLabel: types.StringValue(pool)}
	if gpu != "" {
		labels[gpuAcceleratorLabel] = types.StringValue(gpu)
	}
	return types.MapValueMust(types.StringType, labels)
}

func (m *gpuPoolPairModel) validate(diags *diag.Diagnostics) {
	if !known(m.MachineType) || !catalog.IsGPU(m.MachineType.ValueString()) {
		return
	}
	g, isKnown := catalog.LookupGPU(m.MachineType.ValueString())
	if !isKnown {
		diags.AddAttributeWarning(path.Root("machine_type"), "GPU machine type not known to this provider",
			fmt.Sprintf("This provider cannot check %s against GKE's rules (GPU type and count, DWS support); GKE's answer at apply decides. Known types: %s.",
				m.MachineType.ValueString(), strings.Join(catalog.GPUNames(), ", ")))
		askFor(m.MachineType.ValueString(), "Compute Engine's GPU machine table gives it", diags,
			unknownTypeNeed{"gpu_type", !m.GPUType.IsNull(), "the GPU type (the --accelerator type and cloud.google.com/gke-accelerator label)"},
			unknownTypeNeed{"gpus_per_node", !m.GPUsPerNode.IsNull(), "the GPUs per node (the --accelerator count)"})
		return
	}
	if known(m.GPUType) && m.GPUType.ValueString() != g.Accelerator {
		diags.AddAttributeError(path.Root("gpu_type"), "gpu_type contradicts the machine type",
			fmt.Sprintf("%s nodes carry %s GPUs. Leave gpu_type out: it is derived from a machine type the provider knows.", g.Name, g.Accelerator))
	}
	if known(m.GPUsPerNode) && m.GPUsPerNode.ValueInt64() != int64(g.Count) {
		diags.AddAttributeError(path.Root("gpus_per_node"), "gpus_per_node contradicts the machine type",
			fmt.Sprintf("%s nodes have %d GPUs. Leave gpus_per_node out: it is derived from a machine type the provider knows.", g.Name, g.Count))
	}
	if g.NoOnDemand {
		diags.AddAttributeError(path.Root("machine_type"), g.Name+" has no on-demand VMs",
			fmt.Sprintf("Compute Engine creates %s only as Spot or flex-start VMs, so plan A cannot be an on-demand pool of it. Use a3-highgpu-8g, or another machine type.", g.Name))
	}
	if fx, ok := flexStartRole.decodePool(m.FlexStart); ok && g.NoFlexStart && fx.Provisioning.ValueString() != provisioningQueued && !fx.Provisioning.IsUnknown() {
		diags.AddAttributeError(path.Root("flex_start").AtName("provisioning"), g.Name+" has no flex-start VMs",
			fmt.Sprintf("Compute Engine does not offer flex-start VMs of %s (A4X). Set flex_start.provisioning = \"queued\" for queued provisioning alone.", g.Name))
	}
}
