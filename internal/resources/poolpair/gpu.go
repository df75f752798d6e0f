package poolpair

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// A GPU pair is its own resource, not a TPU pair with an accelerator block: what a TPU pair is about (topology,
// slices, workload policy) means nothing for GPUs, and GPUs bring their own (driver, autorepair, total bounds).
type gpuPoolPairResource = poolPairResource[gpuPoolPairModel, *gpuPoolPairModel]

var (
	_ resource.ResourceWithConfigure      = (*gpuPoolPairResource)(nil)
	_ resource.ResourceWithImportState    = (*gpuPoolPairResource)(nil)
	_ resource.ResourceWithIdentity       = (*gpuPoolPairResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*gpuPoolPairResource)(nil)
	_ resource.ResourceWithValidateConfig = (*gpuPoolPairResource)(nil)
)

// NewGPU is the dwsfallback_gpu_pool_pair resource.
func NewGPU() resource.Resource {
	return &gpuPoolPairResource{kind: pairKind{
		name: "gpu_pool_pair", noun: "GPU", attributes: gpuPairAttributes,
		description: "Two GPU node pools of one machine type on a GKE cluster: plan A on demand (no reservations) and plan B " +
			"provisioned by the Dynamic Workload Scheduler (queued provisioning, with flex-start by default), as GKE's " +
			"\"Run a large-scale workload with flex-start with queued provisioning\" creates it with `gcloud container node-pools create` " +
			"(`--location-policy=ANY --reservation-affinity=none --no-enable-autorepair`).",
	}}
}
