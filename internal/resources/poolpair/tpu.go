package poolpair

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

type tpuPoolPairResource = poolPairResource[tpuPoolPairModel, *tpuPoolPairModel]

var (
	_ resource.ResourceWithConfigure      = (*tpuPoolPairResource)(nil)
	_ resource.ResourceWithImportState    = (*tpuPoolPairResource)(nil)
	_ resource.ResourceWithIdentity       = (*tpuPoolPairResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*tpuPoolPairResource)(nil)
	_ resource.ResourceWithValidateConfig = (*tpuPoolPairResource)(nil)
)

// NewTPU is the dwsfallback_tpu_pool_pair resource.
func NewTPU() resource.Resource {
	return &tpuPoolPairResource{kind: pairKind{
		name: "tpu_pool_pair", noun: "TPU", attributes: tpuPairAttributes, flexAutoRepair: true,
		description: "Two TPU node pools of one machine type and slice shape on a GKE cluster: plan A on demand " +
			"(no reservations) and plan B provisioned by the Dynamic Workload Scheduler (queued provisioning + flex-start), " +
			"exactly as `gcloud container node-pools create` makes them in the DWS + Kueue fallback tutorial.",
	}}
}
