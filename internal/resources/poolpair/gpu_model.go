package poolpair

import (
	"fmt"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

type gpuPoolPairModel struct {
	poolPairModel
	GPUType          types.String `tfsdk:"gpu_type"`
	GPUsPerNode      types.Int64  `tfsdk:"gpus_per_node"`
	GPUDriverVersion types.String `tfsdk:"gpu_driver_version"`
	MaxGPUs          types.Int64  `tfsdk:"max_gpus"`
}

func (m *gpuPoolPairModel) pair() *poolPairModel { return &m.poolPairModel }

// A GPU pool holds single-host nodes: it grows to max_nodes, one pool per plan.
func (m *gpuPoolPairModel) slices() int64            { return 1 }
func (m *gpuPoolPairModel) reservationUnit() int64   { return 1 }
func (m *gpuPoolPairModel) setSlices(int64)          {}
func (m *gpuPoolPairModel) slicesValue() types.Int64 { return types.Int64Value(1) }

// gpuDriverVersions maps gcloud's gpu-driver-version values to the API's.
var gpuDriverVersions = map[string]containerpb.GPUDriverInstallationConfig_GPUDriverVersion{
	"default":  containerpb.GPUDriverInstallationConfig_DEFAULT,
	"latest":   containerpb.GPUDriverInstallationConfig_LATEST,
	"disabled": containerpb.GPUDriverInstallationConfig_INSTALLATION_DISABLED,
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
	// GKE installs the driver when it creates the pool; one it does not name (unspecified) reads as nothing, as flattenKind reads it.
	hv, wv := h[0].GetGpuDriverInstallationConfig().GetGpuDriverVersion(), w[0].GetGpuDriverInstallationConfig().GetGpuDriverVersion()
	if hv != containerpb.GPUDriverInstallationConfig_GPU_DRIVER_VERSION_UNSPECIFIED && hv != wv {
		return fmt.Sprintf("has GPU driver version %s, not %s", hv, wv)
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
	if tfvalue.Known(m.MachineType) {
		if g, ok := catalog.LookupGPU(m.MachineType.ValueString()); ok {
			m.GPUType, m.GPUsPerNode = types.StringValue(g.Accelerator), types.Int64Value(int64(g.Count))
		}
	}
	pending := !tfvalue.Known(m.MachineType) || m.GPUType.IsUnknown() || m.GPUsPerNode.IsUnknown()
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
	labels := map[string]attr.Value{wellknown.NodePoolLabel: types.StringValue(pool)}
	if gpu != "" {
		labels[wellknown.GPUAcceleratorLabel] = types.StringValue(gpu)
	}
	return types.MapValueMust(types.StringType, labels)
}
