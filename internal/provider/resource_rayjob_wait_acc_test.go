package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
)

// TestAccRayJob_waitKeepsPlace: a job that waits for DWS longer than its create timeout stays submitted and in state,
// untainted (a warning says so), so it keeps its place in the queue: the next plan is empty and the job keeps its UID.
// Plan A has no quota, so the job can only go to DWS, which finds no capacity (pending).
func TestAccRayJob_waitKeepsPlace(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-wait"))
	config := pairConfig("acc-wait", "on-demand-pool", "dws-pool", 4) + queueConfig("acc-wait", "wait", 0) +
		jobsConfig("acc-wait", "wait", []int{1}, `wait_for = "admitted"
  timeouts = { create = "15s" }`)
	var uid string
	jobUID := func() (string, error) {
		j, err := cp.clients().Ray.RayV1().RayJobs("default").Get(context.Background(), "wait-rayjob-1", metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		return string(j.UID), nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					if !emu.SetClusterDWS("acc-wait", gkeemu.DWSPending, 0) {
						t.Fatal("no DWS for acc-wait")
					}
				},
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("dwsfallback_rayjob.job1", tfjsonpath.New("admitted"), knownvalue.Bool(false)),
				},
				Check: func(*terraform.State) (err error) {
					uid, err = jobUID()
					return err
				},
			},
			{
				Config:           config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: func(*terraform.State) error {
					now, err := jobUID()
					if err == nil && now != uid {
						err = fmt.Errorf("the job was submitted again: UID %s, was %s", now, uid)
					}
					return err
				},
			},
		},
	})
}
