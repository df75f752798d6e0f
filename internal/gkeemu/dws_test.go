package gkeemu

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A mode set without a delay keeps the simulator's delay.
func TestSetModeKeepsDelay(t *testing.T) {
	d := &DWS{mode: DWSProvision, delay: 3 * time.Second}
	d.SetMode(DWSPending, keepDelay)
	if d.mode != DWSPending || d.delay != 3*time.Second {
		t.Errorf("after SetMode(pending, keep): %s after %v, want pending after 3s", d.mode, d.delay)
	}
	d.SetMode(DWSFail, time.Second)
	if d.mode != DWSFail || d.delay != time.Second {
		t.Errorf("after SetMode(fail, 1s): %s after %v", d.mode, d.delay)
	}
}

// TestDWSPlacement: one queued pool serves a request, in whole slices up to its maximum; what none can take is refused
// with the reason GKE's own autoscaler gives (GoogleCloudPlatform/cluster-autoscaler,
// pkg/provisioningrequests/scaleup/reasons/reasons.go, "%s, affected nodepools: %s"); revoked capacity frees the pool.
func TestDWSPlacement(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	serve(t, emu, "POST", "/v1/projects/p/locations/us-east5-b/clusters", `{"cluster":{"name":"c","initialNodeCount":1}}`)
	// The tutorial's dws-pool: a 4x4 slice of ct6e-standard-4t, queued provisioning with flex-start, at most 4 nodes.
	dwsPool := `{"nodePool":{"name":"dws-pool","autoscaling":{"enabled":true,"maxNodeCount":4},"config":{"machineType":"ct6e-standard-4t","flexStart":true},
	  "placementPolicy":{"tpuTopology":"4x4"},"queuedProvisioning":{"enabled":true}}}`
	if code, body := serve(t, emu, "POST", resLoc, dwsPool); code != 200 {
		t.Fatalf("dws-pool: %d %s", code, body)
	}
	d := &DWS{emu: emu}
	dws := map[string]string{"cloud.google.com/gke-nodepool": "dws-pool"}
	refused := func(selector map[string]string, n int, wantReason, wantMessage string) {
		t.Helper()
		if _, ok := emu.place(nil, selector, n); ok {
			t.Errorf("%d nodes of %v placed, want a refusal", n, selector)
		}
		if reason, message := d.refusal(selector, n); reason != wantReason || message != wantMessage {
			t.Errorf("%d nodes of %v: %s %q, want %s %q", n, selector, reason, message, wantReason, wantMessage)
		}
	}
	refused(dws, 8, "ProvisioningRequestSingleZoneInfeasible",
		"Provisioning Request cannot be scheduled in a single zone of a single nodepool, affected nodepools: dws-pool")
	refused(map[string]string{"cloud.google.com/gke-nodepool": "default-pool"}, 1, "NoQueuedNodepoolAvailable",
		"No nodepool with QueuedProvisioning enabled is available for scale up")
	where, ok := emu.place(nil, dws, 4)
	if !ok || where["projects/p/locations/us-east5-b/clusters/c/nodePools/dws-pool"] != 4 || len(where) != 1 {
		t.Fatalf("one slice: %v %v, want all 4 nodes in dws-pool", where, ok)
	}
	emu.addNodes(where, "req-1")
	refused(dws, 4, "NodepoolSizeReached", "Max nodepool size reached, affected nodepools: dws-pool")
	emu.revoke("req-1")
	if _, ok := emu.place(nil, dws, 4); !ok {
		t.Errorf("after the capacity was revoked, the pool has no room")
	}
}

// TestConditionsInGKEOrder: a request's conditions are written in one order, whatever order they were set in.
func TestConditionsInGKEOrder(t *testing.T) {
	t.Parallel()
	cs := conditions{}
	cs.set(condCapacityRevoked, true, capacityRevokedReason, capacityRevokedMessage)
	cs.set(condAccepted, true, acceptedReason, acceptedMessage)
	cs.set(condProvisioned, true, provisionedReason, provisionedMessage)
	var got []string
	for _, c := range cs.list() {
		m, _ := c.(map[string]any)
		got = append(got, fmt.Sprintf("%s=%s/%s", m["type"], m["status"], m["reason"]))
	}
	if want := "Accepted=True/SuccessfullyQueued Provisioned=True/Provisioned CapacityRevoked=True/CapacityRevoked"; strings.Join(got, " ") != want {
		t.Errorf("conditions %v, want %s", got, want)
	}
}
