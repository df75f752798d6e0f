package gkeemu

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// ComputeClassCRD is the ComputeClass CRD that GKE installs on every cluster, for the local control plane.
//
//go:embed crds/computeclass.yaml
var ComputeClassCRD []byte

// ComputeClassGVR addresses ComputeClasses, which are cluster-scoped.
var ComputeClassGVR = schema.GroupVersionResource{Group: "cloud.google.com", Version: "v1", Resource: "computeclasses"}

// GKE's cluster autoscaler timings (GoogleCloudPlatform/cluster-autoscaler, pkg/backoff and
// pkg/cloudprovider/gke): a failed node group backs off 5 minutes, doubling up to 30, forgotten 3 hours after its
// last failure; a ComputeClass rule backs off a flat 5 minutes; a flex-start priority is tried for 15 minutes unless
// capacityCheckWaitTimeSeconds says otherwise.
const (
	gkeInitialBackoff    = 5 * time.Minute
	gkeMaxBackoff        = 30 * time.Minute
	gkeBackoffReset      = 3 * time.Hour
	gkeRuleBackoff       = 5 * time.Minute
	gkeFlexCapacityCheck = 15 * time.Minute
)

// computeClass is what the autoscaler reads of a ComputeClass.
type computeClass struct {
	obj               *unstructured.Unstructured
	name              string
	generation        int64
	whenUnsatisfiable string
	priorities        []classPriority
}

type classPriority struct {
	nodepools                  []string
	machineFamily, machineType string
	spot, flexStart            bool
	tpuType, tpuTopology       string
	tpuCount                   int64
	gpuType                    string
	gpuCount                   int64
	capacityCheckWait          time.Duration // 0: not set
}

// byNodepools: a rule naming existing pools. GKE backs off only rules that describe nodes, never these.
func (p classPriority) byNodepools() bool { return p.nodepools != nil }

func parseComputeClass(u *unstructured.Unstructured) computeClass {
	c := computeClass{obj: u, name: u.GetName(), generation: u.GetGeneration(), whenUnsatisfiable: "DoNotScaleUp"}
	if v, ok, _ := unstructured.NestedString(u.Object, "spec", "whenUnsatisfiable"); ok {
		c.whenUnsatisfiable = v
	}
	items, _, _ := unstructured.NestedSlice(u.Object, "spec", "priorities")
	for _, it := range items {
		m, _ := it.(map[string]any)
		str := func(f ...string) string { v, _, _ := unstructured.NestedString(m, f...); return v }
		num := func(f ...string) int64 { v, _, _ := unstructured.NestedInt64(m, f...); return v }
		flag := func(f ...string) bool { v, _, _ := unstructured.NestedBool(m, f...); return v }
		p := classPriority{
			machineFamily: str("machineFamily"), machineType: str("machineType"),
			spot: flag("spot"), flexStart: flag("flexStart", "enabled"),
			tpuType: str("tpu", "type"), tpuTopology: str("tpu", "topology"), tpuCount: num("tpu", "count"),
			gpuType: str("gpu", "type"), gpuCount: num("gpu", "count"),
			capacityCheckWait: time.Duration(num("capacityCheckWaitTimeSeconds")) * time.Second,
		}
		if pools, ok, _ := unstructured.NestedStringSlice(m, "nodepools"); ok {
			p.nodepools = append([]string{}, pools...)
		}
		c.priorities = append(c.priorities, p)
	}
	return c
}

// matches reports whether the pool's nodes are of this priority: named by it, or fitting the fields it sets that
// the emulator reads (machine type and family, Spot, flex-start, TPU, GPU; not minimum cores, memory or reservations).
func (p classPriority) matches(t poolTarget, node *corev1.Node) bool {
	if p.byNodepools() {
		return contains(p.nodepools, t.pool)
	}
	l := node.Labels
	mt := t.cfg.GetMachineType()
	switch {
	case p.machineType != "" && p.machineType != mt,
		p.machineFamily != "" && p.machineFamily != l["cloud.google.com/machine-family"],
		p.spot != t.cfg.GetSpot(),
		p.flexStart != t.cfg.GetFlexStart(),
		p.tpuType != "" && p.tpuType != l[wellknown.TPUAcceleratorLabel],
		p.tpuTopology != "" && p.tpuTopology != l[wellknown.TPUTopologyLabel],
		p.tpuCount != 0 && node.Status.Allocatable.Name(wellknown.TPUResource, "").Value() != p.tpuCount,
		p.gpuType != "" && p.gpuType != l[wellknown.GPUAcceleratorLabel],
		p.gpuCount != 0 && node.Status.Allocatable.Name(wellknown.GPUResource, "").Value() != p.gpuCount:
		return false
	}
	return true
}

// listComputeClasses reads every class on the control plane. A control plane without the CRD has none.
func listComputeClasses(ctx context.Context, dyn dynamic.Interface) map[string]computeClass {
	out := map[string]computeClass{}
	if dyn == nil {
		return out
	}
	list, err := dyn.Resource(ComputeClassGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return out
	}
	for i := range list.Items {
		c := parseComputeClass(&list.Items[i])
		out[c.name] = c
	}
	return out
}

// classOf is the class a pod selects, "" for none.
func classOf(p *corev1.Pod) string { return p.Spec.NodeSelector[wellknown.ComputeClassLabel] }

// priorityID is GKE's identifier of a priority in status.priorityStatuses: its index from 0.
func priorityID(i int) string { return strconv.Itoa(i) }

// poolMisconfigured says what GKE's status would say is wrong with a pool that carries the class's label, "" if
// nothing.
func poolMisconfigured(class string, t poolTarget) string {
	if t.cfg.GetLabels()[wellknown.ComputeClassLabel] != class {
		return ""
	}
	var values []string
	for _, tt := range t.cfg.GetTaints() {
		if tt.Key == wellknown.ComputeClassLabel {
			values = append(values, tt.Value)
		}
	}
	switch {
	case len(values) == 0:
		return fmt.Sprintf("Crd taint is missing for the nodepool %v.", t.pool)
	case len(values) > 1:
		return fmt.Sprintf("Nodepool %v has more than one crd taints.", t.pool)
	case values[0] != class:
		return fmt.Sprintf("Crd taint value doesn't match Crd name for the nodepool %v.", t.pool)
	}
	return ""
}

func misconfiguredReason(msg string) string {
	switch {
	case strings.HasPrefix(msg, "Crd taint is missing"):
		return "TaintMissing"
	case strings.Contains(msg, "more than one"):
		return "MultipleCrdTaints"
	default:
		return "TaintValueNotMatching"
	}
}
