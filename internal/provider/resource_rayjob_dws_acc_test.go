package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
)

// TestAccRayJob_dwsLifecycle: what a user sees of the states GKE's DWS takes a ProvisioningRequest through, in GKE's
// conditions (internal/gkeemu/FIDELITY.md). Capacity revoked takes the nodes back, Kueue rejects the check and
// deactivates the job, and the resource reports it without planning to replace the job: the configuration did not
// change. A booking that expires after admission changes nothing: Kueue ignores it once the job is admitted.
func TestAccRayJob_dwsLifecycle(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-dwslife"))
	// No on-demand quota: every job goes to the DWS flavor. No provisioning retries.
	base := pairConfig("acc-dwslife", "on-demand-pool", "dws-pool", 4) + queueConfig("acc-dwslife", "life", 0)
	base = strings.Replace(base, `config = "life-dws-config" }`, `config = "life-dws-config", retry = { backoff_limit_count = 0 } }`, 1)
	job := func(n int) string { return fmt.Sprintf("dwsfallback_rayjob.job%d", n) }
	checks := func(n int, state string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(job(n), tfjsonpath.New("admission_checks"), knownvalue.MapExact(map[string]knownvalue.Check{"life-dws-prov": knownvalue.StringExact(state)}))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				// Provisioned; then the booking expires, and GCE takes the VMs back at the end of their run.
				PreConfig: func() { cp.setDWS(gkeemu.DWSRevoke, 2*time.Second) },
				Config:    base + jobsConfig("acc-dwslife", "life", []int{1}, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(job(1), tfjsonpath.New("admitted_flavor"), knownvalue.StringExact("life-dws")),
					checks(1, "Ready"),
				},
			},
			{
				PreConfig: func() {
					waitProvReq(t, cp, "life-rayjob-1", "CapacityRevoked", "CapacityRevoked")
					waitInactive(t, cp, "life-rayjob-1")
					// Kueue evicts and deactivates it for the rejected check.
					conds := cp.kubectl("", "get", "workloads.kueue.x-k8s.io", "-n", "default", "-o", `jsonpath={range .items[*]}{.metadata.name}: {range .status.conditions[*]}{.type} {.reason} {.message}; {end}{"\n"}{end}`)
					if !strings.Contains(conds, "Evicted DeactivatedDueToAdmissionCheck The workload is deactivated due to Admission check(s): life-dws-prov, were rejected") {
						t.Errorf("the Workload was not deactivated for its rejected check:\n%s", conds)
					}
				},
				Config: base + jobsConfig("acc-dwslife", "life", []int{1}, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(job(1), plancheck.ResourceActionNoop),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					// Deactivated: Kueue evicted it and cleared its checks.
					statecheck.ExpectKnownValue(job(1), tfjsonpath.New("admitted"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(job(1), tfjsonpath.New("admission_checks"), knownvalue.MapExact(map[string]knownvalue.Check{})),
				},
			},
			{
				// The revoked VMs are gone, so the pool has room: job 2 is provisioned, then its booking expires.
				PreConfig: func() { cp.setDWS(gkeemu.DWSExpire, 2*time.Second) },
				Config:    base + jobsConfig("acc-dwslife", "life", []int{1, 2}, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(job(2), tfjsonpath.New("admitted_flavor"), knownvalue.StringExact("life-dws")),
					checks(2, "Ready"),
				},
			},
			{
				// Kueue ignores a booking that expires after admission: the job keeps running, nothing is planned.
				PreConfig: func() { waitProvReq(t, cp, "life-rayjob-2", "BookingExpired", "BookingExpired") },
				Config:    base + jobsConfig("acc-dwslife", "life", []int{1, 2}, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(job(2), plancheck.ResourceActionNoop),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(job(2), tfjsonpath.New("admitted"), knownvalue.Bool(true)),
					checks(2, "Ready"),
				},
			},
		},
	})
}

// waitProvReq waits until the ProvisioningRequest of the job's Workload has a True condition of type typ with GKE's
// reason.
func waitProvReq(t *testing.T, cp *clusterPlane, job, typ, reason string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		out := cp.kubectl("", "get", "provisioningrequests.autoscaling.x-k8s.io", "-n", "default", "-o",
			`jsonpath={range .items[*]}{.metadata.name}{" "}{range .status.conditions[*]}{.type}={.status}/{.reason};{end}{"\n"}{end}`)
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, job) && strings.Contains(line, typ+"=True/"+reason+";") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no ProvisioningRequest of %s with %s=True (%s); have:\n%s", job, typ, reason, out)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// waitInactive waits until Kueue has deactivated the job's Workload.
func waitInactive(t *testing.T, cp *clusterPlane, job string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		wls, err := cp.clients().Kueue.KueueV1beta2().Workloads("default").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, wl := range wls.Items {
			if strings.Contains(wl.Name, job) && wl.Spec.Active != nil && !*wl.Spec.Active {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Workload of %s is still active", job)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
