package gkeemu

import (
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/record"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// classPool is a pool of the tutorial's TPU type that joined class "tpu" as GKE's docs ask: label and taint.
func classPool(name string, flexStart bool) poolTarget {
	t := tpuTarget(false)
	t.pool, t.running = name, true
	t.cfg = &containerpb.NodeConfig{MachineType: "ct6e-standard-4t", FlexStart: boolPtr(flexStart),
		Labels: map[string]string{wellknown.ComputeClassLabel: "tpu"},
		Taints: []*containerpb.NodeTaint{{Key: wellknown.ComputeClassLabel, Value: "tpu", Effect: containerpb.NodeTaint_NO_SCHEDULE}}}
	return t
}

func classObj(spec map[string]any) computeClass {
	return parseComputeClass(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cloud.google.com/v1", "kind": "ComputeClass", "metadata": map[string]any{"name": "tpu"}, "spec": spec}})
}

func poolsOf(cs []candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.t.pool)
	}
	return out
}

func TestCandidatesFollowPriorities(t *testing.T) {
	t.Parallel()
	od, fs, other := classPool("on-demand-pool", false), classPool("flex-start-pool", true), tpuTarget(false)
	other.pool = "unrelated"
	targets := []poolTarget{fs, other, od} // the order GKE lists pools in must not matter
	pod := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: map[string]string{wellknown.ComputeClassLabel: "tpu"}}}
	for _, tc := range []struct {
		name string
		spec map[string]any
		want []string
	}{
		{"nodepools", map[string]any{"priorities": []any{
			map[string]any{"nodepools": []any{"on-demand-pool"}}, map[string]any{"nodepools": []any{"flex-start-pool"}}}},
			[]string{"on-demand-pool", "flex-start-pool"}},
		{"rules: on demand, then flex-start", map[string]any{"priorities": []any{
			map[string]any{"tpu": map[string]any{"type": "tpu-v6e-slice", "count": int64(4), "topology": "4x4"}},
			map[string]any{"tpu": map[string]any{"type": "tpu-v6e-slice", "count": int64(4), "topology": "4x4"}, "flexStart": map[string]any{"enabled": true}}}},
			[]string{"on-demand-pool", "flex-start-pool"}},
		{"a rule no pool matches", map[string]any{"priorities": []any{
			map[string]any{"tpu": map[string]any{"type": "tpu-v5-lite-podslice", "count": int64(4), "topology": "4x4"}}}},
			nil},
		{"ScaleUpAnyway adds the class's other pools last", map[string]any{"whenUnsatisfiable": "ScaleUpAnyway", "priorities": []any{
			map[string]any{"nodepools": []any{"flex-start-pool"}}}},
			[]string{"flex-start-pool", "on-demand-pool"}},
	} {
		got := poolsOf(candidates(pod, targets, map[string]computeClass{"tpu": classObj(tc.spec)}))
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tc.name, diff)
		}
	}
	if got := candidates(pod, targets, nil); got != nil {
		t.Errorf("a class that does not exist: %v, want no pool", poolsOf(got))
	}
	if got := poolsOf(candidates(&corev1.Pod{}, targets, nil)); len(got) != 3 {
		t.Errorf("a pod without a class: %v, want every pool", got)
	}
}

// TestBackoffDoubles: GKE's node-group backoff, 5, 10, 20, then 30 minutes, with no bump while one runs, and reset 3
// hours after the first failure.
func TestBackoffDoubles(t *testing.T) {
	t.Parallel()
	a := &Autoscaler{opts: AutoscalerOptions{TimeScale: 1}, backoffs: map[string]*poolBackoff{}}
	now := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	var got []time.Duration
	for range 5 {
		until := a.backOff("p", now)
		if again := a.backOff("p", now.Add(time.Minute)); !again.Equal(until) {
			t.Errorf("a failure during the backoff moved it from %v to %v", until, again)
		}
		got = append(got, until.Sub(now))
		now = until
	}
	want := []time.Duration{5 * time.Minute, 10 * time.Minute, 20 * time.Minute, 30 * time.Minute, 30 * time.Minute}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backoffs (-want +got):\n%s", diff)
	}
	if until := a.backOff("p", now.Add(3*time.Hour)); until.Sub(now.Add(3*time.Hour)) != 5*time.Minute {
		t.Errorf("after 3 hours the backoff is %v, want 5m again", until.Sub(now.Add(3*time.Hour)))
	}
	if !a.backedOff("other", now).IsZero() {
		t.Error("a pool that never failed is backed off")
	}
}

func TestClassConditions(t *testing.T) {
	t.Parallel()
	od, fs := classPool("on-demand-pool", false), classPool("flex-start-pool", true)
	noTaint := classPool("no-taint", false)
	noTaint.cfg.Taints = nil
	spec := map[string]any{"priorities": []any{
		map[string]any{"nodepools": []any{"on-demand-pool"}}, map[string]any{"nodepools": []any{"flex-start-pool"}}}}
	if got := classConditions(classObj(spec), []poolTarget{od, fs}); len(got) != 1 || got[0].status != "True" || got[0].message != "Crd is healthy." {
		t.Errorf("healthy class: %v", got)
	}
	spec["priorities"] = append(spec["priorities"].([]any), map[string]any{"nodepools": []any{"missing-pool"}})
	got := classConditions(classObj(spec), []poolTarget{od, fs, noTaint})
	var words []string
	for _, c := range got {
		words = append(words, c.typ+"/"+c.reason+": "+c.message)
	}
	want := []string{
		"Health/Health: Crd is not healthy.",
		"NodepoolMisconfigured/TaintMissing: Crd taint is missing for the nodepool no-taint.",
		"CrdMisconfigured/NodePoolNotExist: Nodepool missing-pool specified by name has autoscaling disabled or doesn't exist in the cluster.",
	}
	if diff := cmp.Diff(want, words); diff != "" {
		t.Errorf("misconfigured class (-want +got):\n%s", diff)
	}
}

func TestPriorityConditionsSayBackoff(t *testing.T) {
	t.Parallel()
	a := &Autoscaler{opts: AutoscalerOptions{TimeScale: 1}, backoffs: map[string]*poolBackoff{}, ruleBackoffs: map[string]time.Time{}}
	od := classPool("on-demand-pool", false)
	c := classObj(map[string]any{"priorities": []any{
		map[string]any{"nodepools": []any{"on-demand-pool"}}, map[string]any{"nodepools": []any{"flex-start-pool"}}}})
	now := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	if got := a.priorityConditions(c, 0, []poolTarget{od}, now); got != nil {
		t.Errorf("before any failure: %v", got)
	}
	a.backOff(od.key(), now)
	got := a.priorityConditions(c, 0, []poolTarget{od}, now)
	if len(got) != 1 || got[0].typ != condProvisioningConstrained || got[0].reason != reasonOutOfResources ||
		!strings.Contains(got[0].message, "In backoff until 2026-12-02 08:05:00 UTC") {
		t.Errorf("after a stockout: %+v", got)
	}
	if got := a.priorityConditions(c, 1, []poolTarget{od}, now); got != nil {
		t.Errorf("the next priority: %v, want nothing", got)
	}
}

// TestCapacityCheckWaits: a scale-up that finds no capacity fails at once on an on-demand pool; on a flex-start pool
// GKE keeps trying for 15 minutes, or the priority's capacityCheckWaitTimeSeconds, before it moves on.
func TestCapacityCheckWaits(t *testing.T) {
	t.Parallel()
	a := &Autoscaler{opts: AutoscalerOptions{TimeScale: 1}, capacityChecks: map[string]time.Time{}}
	now := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	od := candidate{t: classPool("on-demand-pool", false), prio: 0}
	if a.checkingCapacity(od, now) {
		t.Error("an on-demand pool waits for capacity; want an immediate failure")
	}
	fs := candidate{t: classPool("flex-start-pool", true), prio: -1}
	if !a.checkingCapacity(fs, now) {
		t.Fatal("a flex-start pool does not wait for capacity")
	}
	a.capacityChecks[fs.t.key()] = now
	if !a.checkingCapacity(fs, now.Add(14*time.Minute)) || a.checkingCapacity(fs, now.Add(15*time.Minute)) {
		t.Error("a flex-start pool's capacity check does not end after 15 minutes")
	}
	c := classObj(map[string]any{"priorities": []any{map[string]any{"flexStart": map[string]any{"enabled": true}, "capacityCheckWaitTimeSeconds": int64(60)}}})
	fs = candidate{t: classPool("flex-start-pool", true), class: &c, prio: 0}
	a.capacityChecks[fs.t.key()] = now
	if !a.checkingCapacity(fs, now.Add(59*time.Second)) || a.checkingCapacity(fs, now.Add(61*time.Second)) {
		t.Error("capacityCheckWaitTimeSeconds = 60 is not honoured")
	}
}

// TestScaleUpFallsBackThroughClass plays GKE's autoscaler on a class of two pools: plan A stocked out fails and is
// backed off, plan B scales; with capacity back but plan A still backed off, a new pod still goes to plan B; once the
// backoff ends, new pods go to plan A again.
func TestScaleUpFallsBackThroughClass(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	rec := record.NewFakeRecorder(100)
	a := &Autoscaler{emu: emu, recorder: rec, opts: AutoscalerOptions{TimeScale: 1},
		backoffs: map[string]*poolBackoff{}, ruleBackoffs: map[string]time.Time{}, capacityChecks: map[string]time.Time{}}
	od, fs := classPool("on-demand-pool", false), classPool("flex-start-pool", true)
	classes := map[string]computeClass{"tpu": classObj(map[string]any{"priorities": []any{
		map[string]any{"nodepools": []any{"on-demand-pool"}}, map[string]any{"nodepools": []any{"flex-start-pool"}}}})}
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{
			NodeSelector: map[string]string{wellknown.ComputeClassLabel: "tpu"},
			Tolerations: []corev1.Toleration{
				{Key: wellknown.TPUResource, Operator: corev1.TolerationOpExists},
				{Key: wellknown.ComputeClassLabel, Operator: corev1.TolerationOpEqual, Value: "tpu"}},
			Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{wellknown.TPUResource: resource.MustParse("4")}}}},
		}}
	}
	pass := func(p *corev1.Pod) string {
		a.scaleUp([]poolTarget{od, fs}, nil, nil, []*corev1.Pod{p}, classes)
		select {
		case e := <-rec.Events:
			return e
		default:
			return ""
		}
	}
	emu.StockoutScaleUps("on-demand-pool", true)
	if e := pass(pod("job1")); !strings.HasPrefix(e, "Warning FailedScaleUp") {
		t.Errorf("plan A stocked out: event %q, want FailedScaleUp", e)
	}
	if e := pass(pod("job1")); !strings.Contains(e, "TriggeredScaleUp") || !strings.Contains(e, "flex-start-pool") {
		t.Errorf("plan A backed off: event %q, want a scale-up of flex-start-pool", e)
	}
	emu.StockoutScaleUps("on-demand-pool", false)
	if e := pass(pod("job2")); !strings.Contains(e, "flex-start-pool") {
		t.Errorf("capacity back, plan A still backed off: event %q, want flex-start-pool", e)
	}
	a.backoffs[od.key()].until = time.Now() // five minutes later
	if e := pass(pod("job3")); !strings.Contains(e, "TriggeredScaleUp") || !strings.Contains(e, "on-demand-pool") {
		t.Errorf("backoff over: event %q, want a scale-up of on-demand-pool", e)
	}
}
