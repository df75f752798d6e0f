package poolpair

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

func (m *gpuPoolPairModel) validate(diags *diag.Diagnostics) {
	if !tfvalue.Known(m.MachineType) || !catalog.IsGPU(m.MachineType.ValueString()) {
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
	if tfvalue.Known(m.GPUType) && m.GPUType.ValueString() != g.Accelerator {
		diags.AddAttributeError(path.Root("gpu_type"), "gpu_type contradicts the machine type",
			fmt.Sprintf("%s nodes carry %s GPUs. Leave gpu_type out: it is derived from a machine type the provider knows.", g.Name, g.Accelerator))
	}
	if tfvalue.Known(m.GPUsPerNode) && m.GPUsPerNode.ValueInt64() != int64(g.Count) {
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
