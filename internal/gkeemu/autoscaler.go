package gkeemu

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// AutoscalerOptions tune the emulated node lifecycle.
type AutoscalerOptions struct {
	// ScaleDownDelay is how long a node of an autoscaled pool stays empty before it is removed (GKE: about 10 minutes).
	ScaleDownDelay time.Duration
	// NodeIPPrefix numbers the nodes' InternalIPs, e.g. "127.225." (loopback: nothing listens there).
	NodeIPPrefix string
	// TimeScale multiplies GKE's autoscaler timings: backoffs after failed scale-ups (5 to 30 minutes) and the
	// capacity checks of flex-start priorities (15 minutes). 0 means 1, GKE's own clock; the local stack runs faster.
	TimeScale float64
	// Clusters are the emulated clusters whose nodes live on this control plane; nil means every cluster.
	Clusters Scope
}

// Autoscaler plays GKE's side of the nodes against the local control plane: every node pool's VMs registered as Node
// objects (named, labelled, tainted and sized as GKE does), autoscaled pools grown from pending pods in whole TPU
// slices and shrunk when empty, queued-provisioning pools sized by the ProvisioningRequests DWS has provisioned, and
// the events GKE's cluster autoscaler writes on pods.
type Autoscaler struct {
	emu      *Server
	cs       kubernetes.Interface
	dyn      dynamic.Interface
	opts     AutoscalerOptions
	recorder record.EventRecorder
	nodes    corelisters.NodeLister
	pods     corelisters.PodLister
	wake     chan struct{}

	mu         sync.Mutex
	emptySince map[string]time.Time
	nextIP     int

	// Owned by the reconcile loop: pools and ComputeClass priorities backed off after failed scale-ups, and the
	// scale-ups still waiting for capacity.
	backoffs       map[string]*poolBackoff
	ruleBackoffs   map[string]time.Time
	capacityChecks map[string]time.Time
}

// NewAutoscaler makes the node lifecycle for the control plane cfg reaches. It does nothing until Run.
func (s *Server) NewAutoscaler(cfg *rest.Config, o AutoscalerOptions) (*Autoscaler, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	if o.ScaleDownDelay == 0 {
		o.ScaleDownDelay = 10 * time.Minute
	}
	if o.NodeIPPrefix == "" {
		o.NodeIPPrefix = "127.225."
	}
	if o.TimeScale == 0 {
		o.TimeScale = 1
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Autoscaler{emu: s, cs: cs, dyn: dyn, opts: o, wake: make(chan struct{}, 1), emptySince: map[string]time.Time{},
		backoffs: map[string]*poolBackoff{}, ruleBackoffs: map[string]time.Time{}, capacityChecks: map[string]time.Time{}}, nil
}

// Run reconciles until ctx ends: on every change of pods or nodes, and every half second for the delays.
func (a *Autoscaler) Run(ctx context.Context) {
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: a.cs.CoreV1().Events("")})
	defer broadcaster.Shutdown()
	a.recorder = broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "cluster-autoscaler"})

	factory := informers.NewSharedInformerFactory(a.cs, 0)
	nodeInf, podInf := factory.Core().V1().Nodes(), factory.Core().V1().Pods()
	a.nodes, a.pods = nodeInf.Lister(), podInf.Lister()
	poke := cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { a.poke() }, UpdateFunc: func(any, any) { a.poke() }, DeleteFunc: func(any) { a.poke() },
	}
	_, _ = nodeInf.Informer().AddEventHandler(poke)
	_, _ = podInf.Informer().AddEventHandler(poke)
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), nodeInf.Informer().HasSynced, podInf.Informer().HasSynced) {
		return
	}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		a.reconcile(ctx)
		select {
		case <-ctx.Done():
			return
		case <-a.wake:
		case <-tick.C:
		}
		// Let a burst of changes (a RayCluster's pods arriving together) settle into one pass.
		time.Sleep(100 * time.Millisecond)
	}
}

// Poke asks for a reconcile pass now, e.g. after a node pool changed in the emulator.
func (a *Autoscaler) Poke() { a.poke() }

func (a *Autoscaler) poke() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

func (a *Autoscaler) reconcile(ctx context.Context) {
	targets := a.targets()
	allNodes, err := a.nodes.List(labels.Everything())
	if err != nil {
		return
	}
	allPods, err := a.pods.List(labels.Everything())
	if err != nil {
		return
	}
	podsOn := map[string][]*corev1.Pod{}
	var pending []*corev1.Pod
	for _, p := range allPods {
		switch {
		case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
		case p.Spec.NodeName != "":
			podsOn[p.Spec.NodeName] = append(podsOn[p.Spec.NodeName], p)
		case unschedulable(p):
			pending = append(pending, p)
		}
	}
	byPool := map[string][]*corev1.Node{}
	known := map[string]bool{}
	for _, t := range targets {
		known[t.key()] = true
	}
	for _, n := range allNodes {
		key := n.Annotations[annotationCluster] + "/nodePools/" + n.Labels[wellknown.NodePoolLabel]
		if n.Annotations[annotationCluster] == "" {
			continue // not an emulated GKE node
		}
		if !known[key] {
			a.deleteNode(ctx, n.Name) // its pool or cluster is gone, and GKE deletes the VMs with it
			continue
		}
		byPool[key] = append(byPool[key], n)
	}
	a.sizeQueuedPools(targets)
	targets = a.targets()
	classes := listComputeClasses(ctx, a.dyn)
	a.scaleUp(targets, byPool, podsOn, pending, classes)
	a.writeClassStatus(ctx, classes, targets)
	a.scaleDown(targets, byPool, podsOn)
	for _, t := range a.targets() {
		if t.running {
			a.sync(ctx, t, byPool[t.key()], podsOn)
		}
	}
}

// targets are the node pools of the clusters on this control plane.
func (a *Autoscaler) targets() []poolTarget {
	all := a.emu.poolTargets()
	out := all[:0]
	for _, t := range all {
		if a.opts.Clusters.has(t.clusterKey) {
			out = append(out, t)
		}
	}
	return out
}

// unschedulable reports whether the scheduler has tried the pod and found no node for it.
func unschedulable(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil || len(p.Spec.SchedulingGates) > 0 {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

// sync makes the pool's Node objects match its size: new VMs register, removed ones go, emptiest first. A node that
// still hosts pods stays until they are gone, unless its pool is gone.
func (a *Autoscaler) sync(ctx context.Context, t poolTarget, have []*corev1.Node, podsOn map[string][]*corev1.Pod) {
	base := groupBase(t.clusterKey, t.clusterName, t.pool)
	for i := len(have); i < t.count; i++ {
		n := newNode(t, nodeName(base), a.ip())
		if _, err := a.cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return
		}
	}
	for _, n := range have {
		a.relabel(ctx, t, n)
	}
	excess := len(have) - t.count
	for _, n := range have {
		if excess <= 0 {
			break
		}
		if len(podsOn[n.Name]) == 0 {
			a.deleteNode(ctx, n.Name)
			excess--
		}
	}
}

// relabel brings an existing node's pool labels and taints in line with its pool's, as GKE does on its nodes when a
// pool's labels or taints are updated: the pool's own labels and taints are set, and a ComputeClass the pool left is
// taken off the node. The labels and taints others put on nodes stay.
func (a *Autoscaler) relabel(ctx context.Context, t poolTarget, n *corev1.Node) {
	want := newNode(t, n.Name, "")
	labels := maps.Clone(n.Labels)
	if _, ok := want.Labels[wellknown.ComputeClassLabel]; !ok {
		delete(labels, wellknown.ComputeClassLabel)
	}
	for k, v := range t.cfg.GetLabels() {
		labels[k] = v
	}
	own := map[string]bool{wellknown.ComputeClassLabel: true}
	for _, tt := range t.cfg.GetTaints() {
		own[tt.Key] = true
	}
	var taints []corev1.Taint
	for _, tt := range n.Spec.Taints {
		if !own[tt.Key] {
			taints = append(taints, tt)
		}
	}
	for _, tt := range want.Spec.Taints {
		if own[tt.Key] {
			taints = append(taints, tt)
		}
	}
	if maps.Equal(labels, n.Labels) && sameTaints(taints, n.Spec.Taints) {
		return
	}
	m := n.DeepCopy()
	m.Labels, m.Spec.Taints = labels, taints
	_, _ = a.cs.CoreV1().Nodes().Update(ctx, m, metav1.UpdateOptions{})
}

func sameTaints(a, b []corev1.Taint) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || (x.Key == y.Key && x.Value == y.Value && x.Effect == y.Effect)
		}
		if !found {
			return false
		}
	}
	return true
}

func (a *Autoscaler) deleteNode(ctx context.Context, name string) {
	a.mu.Lock()
	delete(a.emptySince, name)
	a.mu.Unlock()
	_ = a.cs.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{})
}

func (a *Autoscaler) ip() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextIP++
	return fmt.Sprintf("%s%d.%d", a.opts.NodeIPPrefix, a.nextIP/250, a.nextIP%250+1)
}

// scaleDown shrinks autoscaled pools whose nodes have been empty for the delay: a multi-host slice only when all of
// its nodes are, never below the pool's minimum.
func (a *Autoscaler) scaleDown(targets []poolTarget, byPool map[string][]*corev1.Node, podsOn map[string][]*corev1.Pod) {
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range targets {
		if !t.autoscaled || t.queued {
			continue
		}
		idle := 0
		for _, n := range byPool[t.key()] {
			if len(podsOn[n.Name]) > 0 {
				delete(a.emptySince, n.Name)
				continue
			}
			since, ok := a.emptySince[n.Name]
			if !ok {
				a.emptySince[n.Name] = now
				continue
			}
			if now.Sub(since) >= a.opts.ScaleDownDelay {
				idle++
			}
		}
		idle -= idle % t.sliceNodes
		if target := max(t.count-idle, t.minNodes); target < t.count {
			a.emu.setNodeCount(t.clusterKey, t.pool, target)
		}
	}
}

// fits reports why the pool's nodes cannot host the pod, or "" when they can.
func fits(p *corev1.Pod, t poolTarget) string {
	n := newNode(t, "probe", "")
	for k, v := range p.Spec.NodeSelector {
		if n.Labels[k] != v {
			return "node(s) didn't match Pod's node affinity/selector"
		}
	}
	if aff := p.Spec.Affinity; aff != nil && aff.NodeAffinity != nil && aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		if !matchesNodeSelector(aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, n.Labels) {
			return "node(s) didn't match Pod's node affinity/selector"
		}
	}
	for _, taint := range n.Spec.Taints {
		if taint.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		if !tolerates(p.Spec.Tolerations, taint) {
			return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", taint.Key, taint.Value)
		}
	}
	req := requests(p)
	for name, q := range req {
		if alloc, ok := n.Status.Allocatable[name]; !ok || alloc.Cmp(q) < 0 {
			return "Insufficient " + string(name)
		}
	}
	return ""
}

func tolerates(tols []corev1.Toleration, taint corev1.Taint) bool {
	for i := range tols {
		if tols[i].ToleratesTaint(klog.Background(), &taint, false) {
			return true
		}
	}
	return false
}

func matchesNodeSelector(sel *corev1.NodeSelector, lbls map[string]string) bool {
	for _, term := range sel.NodeSelectorTerms {
		ok := true
		for _, e := range term.MatchExpressions {
			v, has := lbls[e.Key]
			switch e.Operator {
			case corev1.NodeSelectorOpIn:
				ok = ok && has && contains(e.Values, v)
			case corev1.NodeSelectorOpNotIn:
				ok = ok && (!has || !contains(e.Values, v))
			case corev1.NodeSelectorOpExists:
				ok = ok && has
			case corev1.NodeSelectorOpDoesNotExist:
				ok = ok && !has
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// requests sums a pod's container requests (init containers run first, so the larger of the two counts).
func requests(p *corev1.Pod) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, c := range p.Spec.Containers {
		for name, q := range c.Resources.Requests {
			cur := out[name]
			cur.Add(q)
			out[name] = cur
		}
	}
	for _, c := range p.Spec.InitContainers {
		for name, q := range c.Resources.Requests {
			if cur, ok := out[name]; !ok || cur.Cmp(q) < 0 {
				out[name] = q.DeepCopy()
			}
		}
	}
	return out
}

// reasons aggregates why no node group could take a pod, in the cluster autoscaler's words: "pod didn't trigger
// scale-up: 1 max node group size reached, 2 node(s) didn't match Pod's node affinity/selector".
func reasons(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
	}
	return "pod didn't trigger scale-up: " + strings.Join(parts, ", ")
}

// RayOperatorWanted reports whether a running emulated cluster in scope enables the RayOperator add-on, for which GKE
// runs KubeRay's operator in the cluster.
func (s *Server) RayOperatorWanted(sc Scope) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, c := range s.clusters {
		if sc.has(key) && c.pb.GetAddonsConfig().GetRayOperatorConfig().GetEnabled() && c.pb.Status != containerpb.Cluster_PROVISIONING {
			return true
		}
	}
	return false
}
