package gkeemu

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// GKE's cluster autoscaler's event reasons and, for a zone without capacity, its message (GKE "Troubleshoot the
// cluster autoscaler not scaling up"; the template is the autoscaler's zonal error message).
const (
	ReasonTriggeredScaleUp  = "TriggeredScaleUp"
	ReasonNotTriggerScaleUp = "NotTriggerScaleUp"
	ReasonFailedScaleUp     = "FailedScaleUp"
	outOfResourcesTemplate  = "Node scale up in zones %s associated with this pod failed: GCE out of resources. Pod is at risk of not being scheduled."
)

// free is what one node, existing or about to be added, has left for pods.
type free struct {
	pool  string
	avail corev1.ResourceList
}

func (f *free) take(req corev1.ResourceList) bool {
	for name, q := range req {
		if a, ok := f.avail[name]; !ok || a.Cmp(q) < 0 {
			return false
		}
	}
	for name, q := range req {
		a := f.avail[name]
		a.Sub(q)
		f.avail[name] = a
	}
	return true
}

// scaleUp grows autoscaled pools for the pods the scheduler could not place, as GKE's cluster autoscaler does: it
// first counts on the room left on existing and just-added nodes, adds whole slices for multi-host TPU pools, stops at
// the pool's maximum, and writes its events on the pods.
func (a *Autoscaler) scaleUp(targets []poolTarget, byPool map[string][]*corev1.Node, podsOn map[string][]*corev1.Pod, pending []*corev1.Pod) {
	if len(pending) == 0 {
		return
	}
	sort.Slice(pending, func(i, j int) bool { return pending[i].CreationTimestamp.Before(&pending[j].CreationTimestamp) })
	room := map[string][]*free{}
	for key, nodes := range byPool {
		for _, n := range nodes {
			f := &free{pool: key, avail: n.Status.Allocatable.DeepCopy()}
			for _, p := range podsOn[n.Name] {
				for name, q := range requests(p) {
					v := f.avail[name]
					v.Sub(q)
					f.avail[name] = v
				}
			}
			room[key] = append(room[key], f)
		}
	}
	added := map[string]int{}
	triggered := map[string][]*corev1.Pod{}
	byKey := map[string]poolTarget{}
	for _, p := range pending {
		req := requests(p)
		why := map[string]int{}
		placed, failed := false, false
		for _, t := range targets {
			if !t.running {
				continue
			}
			if r := fits(p, t); r != "" {
				if t.autoscaled {
					why[r]++
				}
				continue
			}
			// Room on a node that is there or just registering: the scheduler will place the pod.
			if fitsRoom(room[t.key()], req) {
				placed = true
				break
			}
			if !t.autoscaled {
				continue
			}
			if t.queued {
				// GKE provisions these only for a ProvisioningRequest; the cluster autoscaler leaves such pods alone.
				why["node group(s) with queued provisioning (they grow only through a ProvisioningRequest)"]++
				continue
			}
			if t.count+added[t.key()]+t.sliceNodes > t.maxNodes {
				why["max node group size reached"]++
				continue
			}
			if a.emu.ScaleUpStockedOut(t.pool) {
				a.recorder.Eventf(p, corev1.EventTypeWarning, ReasonFailedScaleUp, outOfResourcesTemplate, t.zone)
				failed = true
				break
			}
			byKey[t.key()] = t
			added[t.key()] += t.sliceNodes
			proto := newNode(t, "probe", "")
			for i := 0; i < t.sliceNodes; i++ {
				room[t.key()] = append(room[t.key()], &free{pool: t.key(), avail: proto.Status.Allocatable.DeepCopy()})
			}
			fitsRoom(room[t.key()], req)
			triggered[t.key()] = append(triggered[t.key()], p)
			placed = true
			break
		}
		if !placed && !failed {
			a.recorder.Event(p, corev1.EventTypeNormal, ReasonNotTriggerScaleUp, reasons(why))
		}
	}
	for key, n := range added {
		t := byKey[key]
		msg := fmt.Sprintf("pod triggered scale-up: [{%s %d->%d (max: %d)}]",
			instanceGroupURL(t.project, t.zone, groupBase(t.clusterKey, t.clusterName, t.pool)), t.count, t.count+n, t.maxNodes)
		for _, p := range triggered[key] {
			a.recorder.Event(p, corev1.EventTypeNormal, ReasonTriggeredScaleUp, msg)
		}
		a.emu.setNodeCount(t.clusterKey, t.pool, t.count+n)
	}
}

func fitsRoom(room []*free, req corev1.ResourceList) bool {
	for _, f := range room {
		if f.take(req) {
			return true
		}
	}
	return false
}

// sizeQueuedPools sets each queued-provisioning pool to the nodes its provisioned, still existing
// ProvisioningRequests asked for: DWS adds them together, and they go when the request does (Kueue deletes it when
// the workload finishes or is deleted).
func (a *Autoscaler) sizeQueuedPools(targets []poolTarget) {
	want := a.emu.provisionedNodes()
	for _, t := range targets {
		if t.queued && t.count != want[t.key()] {
			a.emu.setNodeCount(t.clusterKey, t.pool, want[t.key()])
		}
	}
}
