package gkeemu

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// DWSMode is what the simulated Dynamic Workload Scheduler does with a queued-provisioning request.
type DWSMode string

const (
	// DWSProvision finds capacity: Accepted, then Provisioned, and the flex-start pool grows by the request's nodes.
	DWSProvision DWSMode = "provision"
	// DWSFail plays a stockout: Failed.
	DWSFail DWSMode = "fail"
	// DWSPending leaves the request Accepted but not provisioned, as GKE does while it keeps searching (up to 7 days).
	DWSPending DWSMode = "pending"
)

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
	go func() {
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		_ = d.answer(ctx, pr, mode)
	}()
}

func (d *DWS) answer(ctx context.Context, pr *unstructured.Unstructured, mode DWSMode) error {
	now := metav1.Now().UTC().Format(time.RFC3339)
	cond := func(typ, status, reason, msg string) map[string]any {
		return map[string]any{"type": typ, "status": status, "reason": reason, "message": msg, "lastTransitionTime": now}
	}
	conds := []any{cond("Accepted", "True", "Accepted", "Provisioning Request was accepted by the queued provisioning.")}
	switch mode {
	case DWSProvision:
		conds = append(conds, cond("Provisioned", "True", "Provisioned", "Provisioning Request was successfully provisioned."))
	case DWSFail:
		conds = append(conds, cond("Failed", "True", "ProvisioningFailed",
			"GCE_STOCKOUT: the zone does not have enough capacity available to fulfill the request. Try again later."))
	}
	body, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": conds}})
	_, err := d.dyn.Resource(provReqGVR).Namespace(pr.GetNamespace()).Patch(ctx, pr.GetName(), types.MergePatchType, body, metav1.PatchOptions{}, "status")
	if err != nil || mode != DWSProvision {
		return err
	}
	pool, nodes := d.capacity(ctx, pr)
	if pool != "" {
		d.emu.addNodes(d.scope, pool, nodes, pr.GetUID())
	}
	return nil
}

// capacity reads which pool the request targets (Kueue puts the flavor's node labels in the pod template) and how
// many nodes it asks for.
func (d *DWS) capacity(ctx context.Context, pr *unstructured.Unstructured) (string, int) {
	sets, _, _ := unstructured.NestedSlice(pr.Object, "spec", "podSets")
	pool, nodes := "", 0
	for _, s := range sets {
		m, _ := s.(map[string]any)
		count, _, _ := unstructured.NestedInt64(m, "count")
		nodes += int(count)
		tmpl, _, _ := unstructured.NestedString(m, "podTemplateRef", "name")
		pt, err := d.dyn.Resource(podTemplateGVR).Namespace(pr.GetNamespace()).Get(ctx, tmpl, metav1.GetOptions{})
		if err != nil {
			continue
		}
		if p, ok, _ := unstructured.NestedString(pt.Object, "template", "spec", "nodeSelector", wellknown.NodePoolLabel); ok {
			pool = p
		}
	}
	return pool, nodes
}

// addNodes grows the named pool (in whichever emulated cluster in scope has it) by n nodes, as DWS provisioning does, and
// records that the ProvisioningRequest holds them.
func (s *Server) addNodes(sc Scope, pool string, n int, request types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.provisioned == nil {
		s.provisioned = map[types.UID]map[string]int{}
	}
	for key, c := range s.clusters {
		if sc.has(key) && findPool(c, pool) != nil {
			c.nodeCounts[pool] += n
			if s.provisioned[request] == nil {
				s.provisioned[request] = map[string]int{}
			}
			s.provisioned[request][key+"/nodePools/"+pool] += n
		}
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
