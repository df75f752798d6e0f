package gkeemu

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// The conditions GKE writes on a ProvisioningRequest of class queued-provisioning.gke.io, in GKE's own cluster
// autoscaler's words (GoogleCloudPlatform/cluster-autoscaler: pkg/provisioningrequests/provreqstate/state.go for the
// states, pkg/provisioningrequests/scaleup/reasons/reasons.go for a request no pool can take). The states are
// cumulative: a provisioned request keeps Accepted, an expired booking keeps Provisioned, and so on; Failed never
// stands beside Provisioned=True. The condition types are the ProvisioningRequest API's (kubernetes/autoscaler,
// apis/provisioningrequest/autoscaling.x-k8s.io/v1/types.go).
const (
	condAccepted        = "Accepted"
	condProvisioned     = "Provisioned"
	condFailed          = "Failed"
	condBookingExpired  = "BookingExpired"
	condCapacityRevoked = "CapacityRevoked"

	notAcceptedReason      = "NotAccepted"
	notAcceptedMessage     = "Provisioning Request wasn't accepted."
	notProvisionedReason   = "NotProvisioned"
	notProvisionedMessage  = "Provisioning Request wasn't provisioned."
	acceptedReason         = "SuccessfullyQueued"
	acceptedMessage        = "Provisioning Request was successfully queued."
	provisionedReason      = "Provisioned"
	provisionedMessage     = "Provisioning Request was successfully provisioned."
	bookingExpiredReason   = "BookingExpired"
	bookingExpiredMessage  = "Capacity booking for the Provisioning Request has expired and the nodes are now candidates for scale down when underutilized."
	capacityRevokedReason  = "CapacityRevoked"
	capacityRevokedMessage = "Capacity provisioned for the Provisioning Request was reclaimed and is no longer available in the cluster."
	failedReason           = "Failed"
	failedMessage          = "Provisioning Request has failed."

	// A request no queued pool can take: GKE keeps it Accepted=False for a while (2 minutes), then Failed, both with
	// "REASON_MESSAGE, affected nodepools: POOLS".
	noQueuedPoolReason  = "NoQueuedNodepoolAvailable"
	noQueuedPoolMessage = "No nodepool with QueuedProvisioning enabled is available for scale up"
	poolSizeReason      = "NodepoolSizeReached"
	poolSizeMessage     = "Max nodepool size reached"
	singleZoneReason    = "ProvisioningRequestSingleZoneInfeasible"
	singleZoneMessage   = "Provisioning Request cannot be scheduled in a single zone of a single nodepool"
)

// conditions are a request's conditions by type, written whole on each change.
type conditions map[string]map[string]any

func (cs conditions) set(typ string, status bool, reason, message string) {
	s := "False"
	if status {
		s = "True"
	}
	cs[typ] = map[string]any{"type": typ, "status": s, "reason": reason, "message": message,
		"lastTransitionTime": metav1.Now().UTC().Format(time.RFC3339)}
}

func (cs conditions) list() []any {
	order := []string{condAccepted, condProvisioned, condFailed, condBookingExpired, condCapacityRevoked}
	var out []any
	for _, t := range order {
		if c, ok := cs[t]; ok {
			out = append(out, c)
		}
	}
	return out
}

// play takes a request through GKE's states as mode says: not accepted when GKE picks it up, then at once queued (or
// refused when no queued pool in scope can take it), then, a delay apart, each state the mode plays.
func (d *DWS) play(ctx context.Context, pr *unstructured.Unstructured, mode DWSMode, delay time.Duration) {
	cs := conditions{}
	cs.set(condAccepted, false, notAcceptedReason, notAcceptedMessage)
	step := func() bool {
		if d.write(ctx, pr, cs) != nil {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(delay):
			return true
		}
	}
	if d.write(ctx, pr, cs) != nil {
		return
	}
	selector, nodes := d.capacity(ctx, pr)
	if !d.waitForRoom(ctx, pr, cs, selector, nodes) {
		return
	}
	cs.set(condAccepted, true, acceptedReason, acceptedMessage)
	cs.set(condProvisioned, false, notProvisionedReason, notProvisionedMessage)
	if mode == DWSPending || !step() {
		_ = d.write(ctx, pr, cs)
		return
	}
	if mode == DWSFail {
		cs.set(condFailed, true, failedReason, failedMessage)
		_ = d.write(ctx, pr, cs)
		return
	}
	// Capacity is found now: the pools may have filled since the request was queued.
	where, fits := d.emu.place(d.scope, selector, nodes)
	if !fits {
		reason, message := d.refusal(selector, nodes)
		cs.set(condProvisioned, false, reason, message)
		_ = d.write(ctx, pr, cs)
		return
	}
	d.emu.addNodes(where, pr.GetUID())
	cs.set(condProvisioned, true, provisionedReason, provisionedMessage)
	if mode == DWSProvision || !step() {
		_ = d.write(ctx, pr, cs)
		return
	}
	cs.set(condBookingExpired, true, bookingExpiredReason, bookingExpiredMessage)
	if mode == DWSExpire || !step() {
		_ = d.write(ctx, pr, cs)
		return
	}
	// The VMs' run duration is over: GCE deletes them.
	d.emu.revoke(pr.GetUID())
	cs.set(condCapacityRevoked, true, capacityRevokedReason, capacityRevokedMessage)
	_ = d.write(ctx, pr, cs)
}

// refusalWindow is how long GKE keeps trying a request no queued pool can take before it fails it
// (maxUnreconciledPeriod, 2 minutes, in GoogleCloudPlatform/cluster-autoscaler's
// pkg/provisioningrequests/reconciler/composite_reconciler.go). It is not scaled: Kueue's retries are not either.
const refusalWindow = 2 * time.Minute

// waitForRoom is GKE's handling of a request that no queued pool in scope can take now: Accepted=False with the
// reason, tried again until a pool has room (the nodes of a request that went are gone) or the window ends, when
// the request is Failed with the same reason. It says whether the request fits.
func (d *DWS) waitForRoom(ctx context.Context, pr *unstructured.Unstructured, cs conditions, selector map[string]string, nodes int) bool {
	deadline := time.Now().Add(refusalWindow)
	written := ""
	for {
		if _, fits := d.emu.place(d.scope, selector, nodes); fits {
			return true
		}
		reason, message := d.refusal(selector, nodes)
		if time.Now().After(deadline) {
			cs.set(condAccepted, false, reason, message)
			cs.set(condFailed, true, reason, message)
			_ = d.write(ctx, pr, cs)
			return false
		}
		// Written when it changes, as GKE's conditions keep their transition time.
		if written != reason+message {
			cs.set(condAccepted, false, reason, message)
			if d.write(ctx, pr, cs) != nil {
				return false
			}
			written = reason + message
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Second):
		}
	}
}

func (d *DWS) write(ctx context.Context, pr *unstructured.Unstructured, cs conditions) error {
	body, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": cs.list()}})
	_, err := d.dyn.Resource(provReqGVR).Namespace(pr.GetNamespace()).Patch(ctx, pr.GetName(), types.MergePatchType, body, metav1.PatchOptions{}, "status")
	return err
}

// refusal is GKE's reason and message for a request of n nodes that none of the queued pools in scope can take: none
// matches, none could hold it even empty (one pool in one zone serves a request), or all are full.
func (d *DWS) refusal(selector map[string]string, n int) (string, string) {
	var names []string
	most := 0
	for _, t := range d.emu.queuedPoolsFor(d.scope, selector) {
		names = append(names, t.pool)
		most = max(most, t.maxNodes)
	}
	sort.Strings(names)
	pools := strings.Join(names, ",")
	switch {
	case len(names) == 0:
		return noQueuedPoolReason, noQueuedPoolMessage
	case n > most:
		return singleZoneReason, fmt.Sprintf("%s, affected nodepools: %s", singleZoneMessage, pools)
	}
	return poolSizeReason, fmt.Sprintf("%s, affected nodepools: %s", poolSizeMessage, pools)
}

// revoke takes back the nodes a request holds, as GCE deletes flex-start VMs at the end of their run.
func (s *Server) revoke(request types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, n := range s.provisioned[request] {
		clusterKey, pool, _ := strings.Cut(key, "/nodePools/")
		if c, ok := s.clusters[clusterKey]; ok && findPool(c, pool) != nil {
			c.nodeCounts[pool] = max(0, c.nodeCounts[pool]-n)
		}
	}
	delete(s.provisioned, request)
}
