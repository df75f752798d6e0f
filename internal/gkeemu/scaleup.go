package gkeemu

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// GKE's cluster autoscaler's event reasons and, for a zone without capacity, its message (GKE "Troubleshoot the
// cluster autoscaler not scaling up"; the template is the autoscaler's zonal error message).
const (
	ReasonTriggeredScaleUp  = "TriggeredScaleUp"
	ReasonNotTriggerScaleUp = "NotTriggerScaleUp"
	ReasonFailedScaleUp     = "FailedScaleUp"
	outOfResourcesTemplate  = "Node scale up in zones %s associated with this pod failed: GCE out of resources. Pod is at risk of not being scheduled."
	// ReservationCapacityExceeded is the class GKE's autoscaler gives a scale-up that a full reservation refuses.
	ReservationCapacityExceeded = "RESERVATION_CAPACITY_EXCEEDED"
	reservationFullTemplate     = "gkeemu: node scale up in zone %s failed: reservation %s has no room for %d more VMs (" + ReservationCapacityExceeded + ")."
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

// candidate is a pool a pending pod may scale up, in the order the autoscaler tries them; prio is the index of the
// ComputeClass priority it falls under, -1 for a pod that selects no class.
type candidate struct {
	t     poolTarget
	class *computeClass
	prio  int
}

// candidates orders the pools for a pod: a pod that selects a ComputeClass tries its priorities in order (GKE "About
// custom compute classes"), then, when the class says ScaleUpAnyway, the class's pools that match no priority; other
// pods try every pool.
func candidates(p *corev1.Pod, targets []poolTarget, classes map[string]computeClass) []candidate {
	name := classOf(p)
	if name == "" {
		out := make([]candidate, len(targets))
		for i, t := range targets {
			out[i] = candidate{t: t, prio: -1}
		}
		return out
	}
	c, ok := classes[name]
	if !ok {
		return nil // GKE scales nothing up for a class that does not exist
	}
	var out []candidate
	taken := map[string]bool{}
	for i, pr := range c.priorities {
		for _, t := range targets {
			// A class scales only pools that joined it (its label); the scheduler would refuse the others anyway.
			if !taken[t.key()] && t.cfg.GetLabels()[wellknown.ComputeClassLabel] == name && pr.matches(t, newNode(t, "probe", "")) {
				taken[t.key()] = true
				out = append(out, candidate{t: t, class: &c, prio: i})
			}
		}
	}
	if c.whenUnsatisfiable == "ScaleUpAnyway" {
		for _, t := range targets {
			if !taken[t.key()] && t.cfg.GetLabels()[wellknown.ComputeClassLabel] == name {
				out = append(out, candidate{t: t, class: &c, prio: len(c.priorities)})
			}
		}
	}
	return out
}

// scaleUp grows autoscaled pools for the pods the scheduler could not place, as GKE's cluster autoscaler does: it
// first counts on the room left on existing and just-added nodes, adds whole slices for multi-host TPU pools, stops at
// the pool's maximum, skips pools and ComputeClass priorities backed off after a failed scale-up, and writes its
// events on the pods.
func (a *Autoscaler) scaleUp(targets []poolTarget, byPool map[string][]*corev1.Node, podsOn map[string][]*corev1.Pod, pending []*corev1.Pod, classes map[string]computeClass) {
	if len(pending) == 0 {
		clear(a.capacityChecks)
		return
	}
	now := time.Now()
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
	// Nodes added in this pass to pools that draw on one reservation, by reservation.
	reservedAdded := map[string]int{}
	triggered := map[string][]*corev1.Pod{}
	byKey := map[string]poolTarget{}
	// A capacity check no pending pod waits on any more (its job went away) ends: the next pod starts a new one.
	waiting := map[string]bool{}
	defer func() {
		for key := range a.capacityChecks {
			if !waiting[key] {
				delete(a.capacityChecks, key)
			}
		}
	}()
	for _, p := range pending {
		req := requests(p)
		why := map[string]int{}
		placed, failed := false, false
		for _, c := range candidates(p, targets, classes) {
			t := c.t
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
			if !a.backedOff(t.key(), now).IsZero() || (c.class != nil && now.Before(a.ruleBackoffs[ruleKey(c.class.name, c.prio)])) {
				why["in backoff after failed scale-up"]++
				continue
			}
			// A full reservation gives the pool no VM, as a zone out of capacity does: the pod waits, and Kueue's
			// flavor quota should keep the job off the pool before that.
			reservationFull := t.reserved && reservedAdded[t.reservation]+t.sliceNodes > t.reservationRoom
			if reservationFull || a.emu.For(t.clusterName).ScaleUpStockedOut(t.pool) {
				if a.checkingCapacity(c, now) {
					if _, told := a.capacityChecks[t.key()]; !told {
						a.capacityChecks[t.key()] = now
					}
					waiting[t.key()] = true
					placed = true
					break
				}
				a.failScaleUp(p, c, now, reservationFull)
				failed = true
				break
			}
			delete(a.capacityChecks, t.key())
			a.clearBackoff(t.key())
			byKey[t.key()] = t
			added[t.key()] += t.sliceNodes
			reservedAdded[t.reservation] += t.sliceNodes
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

// checkingCapacity reports whether a scale-up that finds no capacity is still waiting for it: GKE keeps trying a
// flex-start pool, and a multi-host TPU priority that sets capacityCheckWaitTimeSeconds, for that long (flex-start:
// 15 minutes by default) before it gives up and moves on.
func (a *Autoscaler) checkingCapacity(c candidate, now time.Time) bool {
	wait := time.Duration(0)
	if c.t.cfg.GetFlexStart() {
		wait = gkeFlexCapacityCheck
	}
	if c.class != nil && c.prio < len(c.class.priorities) && c.class.priorities[c.prio].capacityCheckWait > 0 &&
		(c.t.cfg.GetFlexStart() || c.t.sliceNodes > 1) {
		wait = c.class.priorities[c.prio].capacityCheckWait
	}
	if wait == 0 {
		return false
	}
	since, ok := a.capacityChecks[c.t.key()]
	if !ok {
		return true
	}
	if now.Sub(since) < a.scaled(wait) {
		return true
	}
	delete(a.capacityChecks, c.t.key())
	return false
}

// failScaleUp is GKE's answer to a scale-up that found no capacity: a FailedScaleUp event on the pod, the pool backed
// off, and for a ComputeClass priority that describes nodes (not one naming pools, and not the last one) the whole
// priority backed off for 5 minutes, so that the next priority is tried.
func (a *Autoscaler) failScaleUp(p *corev1.Pod, c candidate, now time.Time, reservationFull bool) {
	if reservationFull {
		// GKE's autoscaler classes a full reservation RESERVATION_CAPACITY_EXCEEDED (OtherErrorClass), not out of
		// resources (kubernetes/autoscaler#7319); its event's words for it are not on record.
		_, name, _ := strings.Cut(c.t.reservation, "/")
		a.recorder.Eventf(p, corev1.EventTypeWarning, ReasonFailedScaleUp, reservationFullTemplate, c.t.zone, name, c.t.sliceNodes)
	} else {
		a.recorder.Eventf(p, corev1.EventTypeWarning, ReasonFailedScaleUp, outOfResourcesTemplate, c.t.zone)
	}
	a.backOff(c.t.key(), now)
	if c.class != nil && c.prio < len(c.class.priorities)-1 && !c.class.priorities[c.prio].byNodepools() {
		a.ruleBackoffs[ruleKey(c.class.name, c.prio)] = now.Add(a.scaled(gkeRuleBackoff))
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
