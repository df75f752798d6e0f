package gkeemu

import (
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

func tpuTarget(queued bool) poolTarget {
	return poolTarget{
		clusterKey: "projects/p/locations/us-east5-b/clusters/tpu-cluster", clusterName: "tpu-cluster", project: "p",
		zone: "us-east5-b", pool: "dws-pool", topology: "4x4", queued: queued, autoscaled: true, maxNodes: 4, sliceNodes: 4,
		cfg: &containerpb.NodeConfig{MachineType: "ct6e-standard-4t", FlexStart: boolPtr(queued), DiskType: "hyperdisk-balanced"},
	}
}

func boolPtr(b bool) *bool { return &b }

func TestNewNodeAsGKERegistersIt(t *testing.T) {
	n := newNode(tpuTarget(true), "gke-tpu-cluster-dws-pool-1234abcd-x1y2", "127.225.0.9")
	for k, want := range map[string]string{
		wellknown.NodePoolLabel: "dws-pool", wellknown.TPUAcceleratorLabel: "tpu-v6e-slice", wellknown.TPUTopologyLabel: "4x4",
		wellknown.FlexStartLabel: "true", wellknown.QueuedLabel: "true", "node.kubernetes.io/instance-type": "ct6e-standard-4t",
		"topology.kubernetes.io/zone": "us-east5-b", "topology.kubernetes.io/region": "us-east5",
	} {
		if got := n.Labels[k]; got != want {
			t.Errorf("label %s = %q, want %q", k, got, want)
		}
	}
	wantTaints := []corev1.Taint{
		{Key: wellknown.TPUResource, Value: "present", Effect: corev1.TaintEffectNoSchedule},
		{Key: wellknown.QueuedTaint, Value: "true", Effect: corev1.TaintEffectNoSchedule},
	}
	if diff := cmp.Diff(wantTaints, n.Spec.Taints); diff != "" {
		t.Errorf("taints (-want +got):\n%s", diff)
	}
	if got := n.Status.Capacity[wellknown.TPUResource]; got.Value() != 4 {
		t.Errorf("google.com/tpu capacity = %s, want 4 chips", got.String())
	}
	if got := n.Status.Capacity[corev1.ResourceCPU]; got.Value() != 180 {
		t.Errorf("cpu capacity = %s, want 180", got.String())
	}
	// GKE's reservation on 180 vCPUs: 60m + 10m + 10m + 0.25% of 176 cores = 520m.
	if got := n.Status.Allocatable[corev1.ResourceCPU]; got.MilliValue() != 179480 {
		t.Errorf("cpu allocatable = %s, want 179480m", got.String())
	}
}

func TestFits(t *testing.T) {
	worker := func(tols ...corev1.Toleration) *corev1.Pod {
		return &corev1.Pod{Spec: corev1.PodSpec{
			NodeSelector: map[string]string{wellknown.NodePoolLabel: "dws-pool", wellknown.TPUTopologyLabel: "4x4"},
			Tolerations:  tols,
			Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				wellknown.TPUResource: resource.MustParse("4"), corev1.ResourceCPU: resource.MustParse("8"),
			}}}},
		}}
	}
	tpu := corev1.Toleration{Key: wellknown.TPUResource, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	queued := corev1.Toleration{Key: wellknown.QueuedTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	cases := map[string]struct {
		pod    *corev1.Pod
		target poolTarget
		want   string
	}{
		"tolerates both":         {worker(tpu, queued), tpuTarget(true), ""},
		"lacks gke-queued":       {worker(tpu), tpuTarget(true), "node(s) had untolerated taint {cloud.google.com/gke-queued: true}"},
		"on-demand needs no gke": {worker(tpu), func() poolTarget { t := tpuTarget(false); t.pool = "dws-pool"; return t }(), ""},
		"other pool":             {worker(tpu, queued), func() poolTarget { t := tpuTarget(true); t.pool = "x"; return t }(), "node(s) didn't match Pod's node affinity/selector"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := fits(tc.pod, tc.target); got != tc.want {
				t.Errorf("fits = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGroupBaseIsAValidNodeNamePrefix(t *testing.T) {
	base := groupBase("projects/p/locations/z/clusters/a-very-long-cluster-name-indeed", "a-very-long-cluster-name-indeed", "a-very-long-pool-name-too")
	if n := nodeName(base); len(n) > 63 {
		t.Errorf("node name %q is %d characters, over a DNS label's 63", n, len(n))
	}
}

func TestGPUNodeAsGKERegistersIt(t *testing.T) {
	latest := containerpb.GPUDriverInstallationConfig_LATEST
	target := poolTarget{
		clusterKey: "projects/p/locations/us-east5-b/clusters/c", clusterName: "c", project: "p", zone: "us-east5-b",
		pool: "dws", queued: true, gpuTaint: true, cfg: &containerpb.NodeConfig{MachineType: "a3-highgpu-8g", FlexStart: boolPtr(true),
			Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-h100-80gb", AcceleratorCount: 8,
				GpuDriverInstallationConfig: &containerpb.GPUDriverInstallationConfig{GpuDriverVersion: &latest}}}},
	}
	n := newNode(target, "gke-c-dws-1234abcd-x1y2", "127.225.0.10")
	for k, want := range map[string]string{
		wellknown.GPUAcceleratorLabel: "nvidia-h100-80gb", wellknown.GPUCountLabel: "8", wellknown.GPUDriverLabel: "latest", wellknown.GPULabel: "true", wellknown.QueuedLabel: "true",
	} {
		if got := n.Labels[k]; got != want {
			t.Errorf("label %s = %q, want %q", k, got, want)
		}
	}
	if _, ok := n.Labels[wellknown.TPUAcceleratorLabel]; ok {
		t.Error("a GPU node carries the TPU accelerator label")
	}
	wantTaints := []corev1.Taint{
		{Key: wellknown.GPUResource, Value: "present", Effect: corev1.TaintEffectNoSchedule},
		{Key: wellknown.QueuedTaint, Value: "true", Effect: corev1.TaintEffectNoSchedule},
	}
	if diff := cmp.Diff(wantTaints, n.Spec.Taints); diff != "" {
		t.Errorf("taints (-want +got):\n%s", diff)
	}
	if got := n.Status.Allocatable[wellknown.GPUResource]; got.Value() != 8 {
		t.Errorf("nvidia.com/gpu allocatable = %s, want 8", got.String())
	}
	// A cluster of GPU pools only: GKE adds no GPU taint.
	target.gpuTaint, target.queued = false, false
	if n := newNode(target, "gke-c-dws-1234abcd-x1y3", "127.225.0.11"); len(n.Spec.Taints) != 0 {
		t.Errorf("GPU-only cluster: taints %v, want none", n.Spec.Taints)
	}
}

func TestAcceleratorRules(t *testing.T) {
	pool := func(mt string, mutate func(*containerpb.NodePool)) *containerpb.NodePool {
		np := &containerpb.NodePool{Name: "p", Config: &containerpb.NodeConfig{MachineType: mt},
			Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 4}}
		if mutate != nil {
			mutate(np)
		}
		return np
	}
	placed := func(topology, policy string) func(*containerpb.NodePool) {
		return func(np *containerpb.NodePool) {
			np.PlacementPolicy = &containerpb.NodePool_PlacementPolicy{TpuTopology: topology, PolicyName: policy}
		}
	}
	oneSlice := func(place func(*containerpb.NodePool), maxNodes int32) func(*containerpb.NodePool) {
		return func(np *containerpb.NodePool) {
			place(np)
			np.Autoscaling.MaxNodeCount = maxNodes
		}
	}
	gpus := func(typ string, n int64) func(*containerpb.NodePool) {
		return func(np *containerpb.NodePool) {
			np.Config.Accelerators = []*containerpb.AcceleratorConfig{{AcceleratorType: typ, AcceleratorCount: n}}
		}
	}
	s := New(Options{})
	for name, tc := range map[string]struct {
		np   *containerpb.NodePool
		want string
	}{
		"tpu7x multi-host by policy":   {pool("tpu7x-standard-4t", oneSlice(placed("2x2x2", "wp"), 2)), ""},
		"tpu7x single host":            {pool("tpu7x-standard-4t", nil), ""},
		"tpu7x single host with shape": {pool("tpu7x-standard-4t", placed("2x2x1", "")), "TPU topology can't be specified with single-host TPU slice pool"},
		"tpu7x multi-host without":     {pool("tpu7x-standard-4t", placed("2x2x2", "")), "Use workload policy instead"},
		"tpu7x odd shape":              {pool("tpu7x-standard-4t", placed("2x2x3", "wp")), `gkeemu: TPU topology "2x2x3" cannot be used with machine type "tpu7x-standard-4t": topology "2x2x3" does not fit machine type`},
		"tpu7x large shape":            {pool("tpu7x-standard-4t", placed("4x4x8", "wp")), `Maximum node count 4 is not a valid size of TPU pod slice with topology "4x4x8"`},
		"tpu7x two slices":             {pool("tpu7x-standard-4t", oneSlice(placed("2x2x2", "wp"), 4)), `Maximum node count 4 is not a valid size of TPU pod slice with topology "2x2x2"`},
		"h100 pool":                    {pool("a3-highgpu-8g", gpus("nvidia-h100-80gb", 8)), ""},
		"wrong gpu count":              {pool("a3-highgpu-8g", gpus("nvidia-h100-80gb", 4)), "gkeemu: machine type a3-highgpu-8g comes with 8 x nvidia-h100-80gb, but the pool asks for 4 x nvidia-h100-80gb"},
		"a3-highgpu-1g on demand":      {pool("a3-highgpu-1g", gpus("nvidia-h100-80gb", 1)), "gkeemu: machine type a3-highgpu-1g is offered only as Spot or flex-start VMs"},
		"a4x flex-start":               {pool("a4x-highgpu-4g", func(np *containerpb.NodePool) { np.Config.FlexStart = boolPtr(true) }), "gkeemu: machine type a4x-highgpu-4g is not offered as flex-start VMs"},
		"gpu machine type that is not": {pool("a9-futuregpu-8g", nil), `Invalid machine type "a9-futuregpu-8g" in zone "us-east5-b": GCE_NOT_FOUND`},
	} {
		t.Run(name, func(t *testing.T) {
			e := s.validateNodePool(tc.np, "us-east5-b")
			switch {
			case tc.want == "" && e != nil:
				t.Errorf("refused: %v", e.message)
			case tc.want != "" && (e == nil || !strings.Contains(e.message, tc.want)):
				t.Errorf("got %v, want a refusal containing %q", e, tc.want)
			}
		})
	}
}
