package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// TestAccRayJob_driftAmongMany is drift by hand among enough jobs that a refresh reads them from the namespace's
// shared LISTs and answers unchanged ones without the framework (server.go): each changed job is found, and only it.
func TestAccRayJob_driftAmongMany(t *testing.T) {
	requireStack(t)
	createTestCluster(t, "acc-jmany")
	cfg := pairConfig("acc-jmany", "on-demand-pool", "dws-pool", 4) + queueConfig("acc-jmany", "many", 16) +
		jobsConfig("acc-jmany", "many", []int{1, 2, 3, 4, 5, 6}, `wait_for = "none"`)
	noop := func(n string) plancheck.PlanCheck {
		return plancheck.ExpectResourceAction("dwsfallback_rayjob."+n, plancheck.ResourceActionNoop)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() {
					kubectl(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: many-rayjob-2-files, namespace: default}\ndata: {train.py: edited}\n", "apply", "-f", "-")
					kubectl(t, "", "delete", "configmap", "many-rayjob-3-files")
					kubectl(t, "", "delete", "rayjob", "many-rayjob-4", "--wait=true")
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					noop("job1"), noop("job5"), noop("job6"),
					plancheck.ExpectResourceAction("dwsfallback_rayjob.job2", plancheck.ResourceActionReplace),
					plancheck.ExpectResourceAction("dwsfallback_rayjob.job3", plancheck.ResourceActionReplace),
					plancheck.ExpectResourceAction("dwsfallback_rayjob.job4", plancheck.ResourceActionCreate),
				}},
			},
			{
				// A status change made outside Terraform reaches the state on the next refresh.
				PreConfig: func() {
					kubectl(t, "", "patch", "rayjob", "many-rayjob-5", "--subresource=status", "--type=merge",
						"-p", `{"status":{"jobDeploymentStatus":"Complete","jobStatus":"SUCCEEDED"}}`)
				},
				RefreshState: true,
				Check:        resource.TestCheckResourceAttr("dwsfallback_rayjob.job5", "job_status", "SUCCEEDED"),
			},
			{Config: cfg, PlanOnly: true},
		},
	})
}
