package gkeemu

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// DWSMode is what the simulated Dynamic Workload Scheduler does with a queued-provisioning request.
type DWSMode string

const (
	// DWSProvision finds capacity: Accepted, then Provisioned, and the flex-start pool grows by the request's nodes.
	DWSProvision DWSMode = "provision"
	// DWSFail plays a request GKE gives up on: Failed, with GKE's default reason.
	DWSFail DWSMode = "fail"
	// DWSPending leaves the request Accepted and Provisioned=False, as GKE does while it keeps searching (up to 7
	// days).
	DWSPending DWSMode = "pending"
	// DWSExpire provisions, then ends the request's capacity booking (GKE: 10 minutes after Provisioned).
	DWSExpire DWSMode = "expire"
	// DWSRevoke provisions, ends the booking, then revokes the capacity (GKE: when the VMs' run duration is over) and
	// removes the nodes.
	DWSRevoke DWSMode = "revoke"
)

// DWSModes are the modes the admin API takes.
var DWSModes = []DWSMode{DWSProvision, DWSPending, DWSFail, DWSExpire, DWSRevoke}

// QueuedProvisioningClass is the ProvisioningRequest class GKE's DWS serves.
const QueuedProvisioningClass = "queued-provisioning.gke.io"

var (
	provReqGVR     = schema.GroupVersionResource{Group: "autoscaling.x-k8s.io", Version: "v1", Resource: "provisioningrequests"}
	podTemplateGVR = schema.GroupVersionResource{Version: "v1", Resource: "podtemplates"}
)

// DWS plays GKE's queued provisioning against a Kubernetes control plane: it answers ProvisioningRequests of class
// queued-provisioning.gke.io after a delay, and reflects provisioned capacity in the emulated node pool.
type DWS struct {
	emu *Server
	dyn dynamic.Interface

	scope Scope

	mu      sync.Mutex
	mode    DWSMode
	delay   time.Duration
	handled map[types.UID]bool
}

// NewDWS makes a simulator for the control plane cfg reaches. It does nothing until Run.
func (s *Server) NewDWS(cfg *rest.Config, mode DWSMode, delay time.Duration) (*DWS, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	d := &DWS{emu: s, dyn: dyn, mode: mode, delay: delay, handled: map[types.UID]bool{}}
	s.mu.Lock()
	s.dws = append(s.dws, d)
	s.mu.Unlock()
	return d, nil
}

// Within limits the simulator to the requests of the clusters in sc (those whose control plane it watches). Call it
// before Run.
func (d *DWS) Within(sc Scope) *DWS {
	d.scope = sc
	return d
}

// keepDelay, given as a delay, keeps the one the simulator has.
const keepDelay time.Duration = -1

// SetMode changes what happens to requests answered from now on; a delay of keepDelay keeps the current one.
func (d *DWS) SetMode(mode DWSMode, delay time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.mode = mode
	if delay != keepDelay {
		d.delay = delay
	}
}

// Run watches ProvisioningRequests until ctx ends, re-establishing the watch when it drops.
func (d *DWS) Run(ctx context.Context) {
	defer d.emu.forgetDWS(d)
	for ctx.Err() == nil {
		w, err := d.dyn.Resource(provReqGVR).Namespace(metav1.NamespaceAll).Watch(ctx, metav1.ListOptions{})
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(500 * time.Millisecond):
			}
			continue
		}
		for ev := range w.ResultChan() {
			pr, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			switch ev.Type {
			case watch.Added, watch.Modified:
				d.consider(ctx, pr)
			case watch.Deleted:
				d.emu.release(pr.GetUID())
			}
		}
		w.Stop()
	}
}

func (d *DWS) consider(ctx context.Context, pr *unstructured.Unstructured) {
	class, _, _ := unstructured.NestedString(pr.Object, "spec", "provisioningClassName")
	if class != QueuedProvisioningClass {
		return
	}
	d.mu.Lock()
	if d.handled[pr.GetUID()] {
		d.mu.Unlock()
		return
	}
	d.handled[pr.GetUID()] = true
	mode, delay := d.mode, d.delay
	d.mu.Unlock()
	if set, ok := d.emu.clusterDWS(d.scope); ok {
		mode = set.mode
		if set.delay != keepDelay {
			delay = set.delay
		}
	}
	go d.play(ctx, pr, mode, delay)
}

// capacity reads what the request's pods select (Kueue puts the flavor's node labels in the pod template's node
// selector) and how many nodes it asks for: one per pod, as a TPU or GPU pod takes a whole node here.
func (d *DWS) capacity(ctx context.Context, pr *unstructured.Unstructured) (map[string]string, int) {
	sets, _, _ := unstructured.NestedSlice(pr.Object, "spec", "podSets")
	selector, nodes := map[string]string{}, 0
	for _, s := range sets {
		m, _ := s.(map[string]any)
		count, _, _ := unstructured.NestedInt64(m, "count")
		nodes += int(count)
		tmpl, _, _ := unstructured.NestedString(m, "podTemplateRef", "name")
		pt, err := d.dyn.Resource(podTemplateGVR).Namespace(pr.GetNamespace()).Get(ctx, tmpl, metav1.GetOptions{})
		if err != nil {
			continue
		}
		sel, _, _ := unstructured.NestedStringMap(pt.Object, "template", "spec", "nodeSelector")
		for k, v := range sel {
			selector[k] = v
		}
	}
	return selector, nodes
}

// placement is where DWS puts a request's nodes: per pool ("CLUSTER/nodePools/POOL"), how many.
type placement map[string]int

// place finds a queued-provisioning pool in scope whose nodes the selector selects and that has room for all n
// nodes, in whole slices: GKE serves a request from one pool in one zone (GKE's autoscaler refuses one that needs
// more, ProvisioningRequestSingleZoneInfeasible), so a request for more than a multi-host pool's one slice never fits.
// ok is false when no pool can take it; then nothing is placed.
func (s *Server) place(sc Scope, selector map[string]string, n int) (placement, bool) {
	for _, t := range s.queuedPoolsFor(sc, selector) {
		if n > 0 && n%t.sliceNodes == 0 && t.count+n <= t.maxNodes {
			return placement{t.key(): n}, true
		}
	}
	return nil, false
}

// queuedPoolsFor are the queued-provisioning pools in scope whose nodes the selector selects, in key order; none for
// an empty selector.
func (s *Server) queuedPoolsFor(sc Scope, selector map[string]string) []poolTarget {
	if len(selector) == 0 {
		return nil
	}
	targets := s.poolTargets()
	sort.Slice(targets, func(i, j int) bool { return targets[i].key() < targets[j].key() })
	var out []poolTarget
	for _, t := range targets {
		if sc.has(t.clusterKey) && t.queued && selects(selector, newNode(t, "probe", "").Labels) {
			out = append(out, t)
		}
	}
	return out
}

func selects(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// addNodes grows the pools of p, as DWS provisioning does, and records that the ProvisioningRequest holds them.
func (s *Server) addNodes(p placement, request types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.provisioned == nil {
		s.provisioned = map[types.UID]map[string]int{}
	}
	for key, n := range p {
		clusterKey, pool, _ := strings.Cut(key, "/nodePools/")
		c, ok := s.clusters[clusterKey]
		if !ok || findPool(c, pool) == nil {
			continue
		}
		c.nodeCounts[pool] += n
		if s.provisioned[request] == nil {
			s.provisioned[request] = map[string]int{}
		}
		s.provisioned[request][key] += n
	}
}

// forgetDWS drops a simulator that stopped (its control plane ended) from those the admin API sets.
func (s *Server) forgetDWS(d *DWS) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.dws {
		if x == d {
			s.dws = append(s.dws[:i], s.dws[i+1:]...)
			return
		}
	}
}

// release forgets a deleted ProvisioningRequest: the nodes DWS provisioned for it may go.
func (s *Server) release(request types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.provisioned, request)
}

// provisionedNodes is, per pool ("CLUSTER/nodePools/POOL"), the nodes that live ProvisioningRequests hold.
func (s *Server) provisionedNodes() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, pools := range s.provisioned {
		for key, n := range pools {
			out[key] += n
		}
	}
	return out
}

// NodeCount is how many nodes the pool has in the emulated cluster projects/P/locations/L/clusters/C.
func (s *Server) NodeCount(cluster, pool string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clusters[cluster]
	if !ok || findPool(c, pool) == nil {
		return 0, fmt.Errorf("no pool %s in %s", pool, cluster)
	}
	return c.nodeCounts[pool], nil
}
