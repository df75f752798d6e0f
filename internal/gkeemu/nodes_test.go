package gkeemu

import (
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
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
		LabelNodePool: "dws-pool", LabelTPUAccelerator: "tpu-v6e-slice", LabelTPUTopology: "4x4",
		LabelFlexStart: "true", LabelQueued: "true", "node.kubernetes.io/instance-type": "ct6e-standard-4t",
		"topology.kubernetes.io/zone": "us-east5-b", "topology.kubernetes.io/region": "us-east5",
	} {
		if got := n.Labels[k]; got != want {
			t.Errorf("label %s = %q, want %q", k, got, want)
		}
	}
	wantTaints := []corev1.Taint{
		{Key: TaintTPU, Value: "present", Effect: corev1.TaintEffectNoSchedule},
		{Key: TaintQueued, Value: "true", Effect: corev1.TaintEffectNoSchedule},
	}
	if diff := cmp.Diff(wantTaints, n.Spec.Taints); diff != "" {
		t.Errorf("taints (-want +got):\n%s", diff)
	}
	if got := n.Status.Capacity[ResourceTPU]; got.Value() != 4 {
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
			NodeSelector: map[string]string{LabelNodePool: "dws-pool", LabelTPUTopology: "4x4"},
			Tolerations:  tols,
			Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				ResourceTPU: resource.MustParse("4"), corev1.ResourceCPU: resource.MustParse("8"),
			}}}},
		}}
	}
	tpu := corev1.Toleration{Key: TaintTPU, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	queued := corev1.Toleration{Key: TaintQueued, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
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
