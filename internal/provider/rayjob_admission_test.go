package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// oneJob is a job on the pool pair of the test config, with attrs set on top of the tutorial's.
func oneJob(cluster, name, attrs string) string {
	workers := `tpu_workers = {
    accelerator    = dwsfallback_tpu_pool_pair.test.tpu_accelerator
    topology       = dwsfallback_tpu_pool_pair.test.tpu_topology
    chips_per_node = dwsfallback_tpu_pool_pair.test.chips_per_node
    cpu = "4", memory = "8Gi"
  }`
	if strings.Contains(attrs, "tpu_workers") {
		workers = ""
	}
	return fmt.Sprintf(`
resource "dwsfallback_rayjob" %[2]q {
  cluster    = %[1]q
  name       = %[2]q
  entrypoint = "python /app/train.py"
  image      = "rayproject/ray:2.53.0-py311"
  head       = { cpu = "1", memory = "2Gi" }
  %[4]s
  timeouts   = { create = "5m" }
  depends_on = [dwsfallback_kueue_queue.test]
  %[3]s
}
`, cluster, name, attrs, workers)
}

// TestAccRayJob_admissionOffThePath: jobs that Kueue can never admit fail with Kueue's reason instead of waiting out
// the timeout; a queued job without `elastic` gets defaults Kueue accepts; what the config alone shows is refused at
// plan time; a real webhook denial is reported as such (not as RBAC) and leaves no state behind.
func TestAccRayJob_admissionOffThePath(t *testing.T) {
	requireStack(t)
	createTestCluster(t, "acc-admit")
	// Plan B's quota is as small as plan A's here, so a two-slice job fits no flavor at all.
	base := pairConfig("acc-admit", "on-demand-pool", "dws-pool", 4) +
		strings.Replace(queueConfig("acc-admit", "admit", 16), `"google.com/tpu" = "1000000000"`, `"google.com/tpu" = "16"`, 1)
	admitID := "projects/" + testProject + "/locations/" + testLocation + "/clusters/acc-admit"
	jobGone := func(name string) func(*terraform.State) error {
		return func(*terraform.State) error {
			_, err := adminClients(t).Ray.RayV1().RayJobs("default").Get(context.Background(), name, metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("RayJob %s exists after a refused create (%w)", name, err)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:      base + oneJob("acc-admit", "admit-noqueue", `queue = "no-such-queue"`+"\n  elastic = true"),
				ExpectError: patternRE(`(?s)Kueue cannot admit the job as things stand: LocalQueue\s+no-such-queue\s+doesn't\s+exist`),
			},
			{
				Config: base + oneJob("acc-admit", "admit-toobig", `queue = "admit-user-queue"`+"\n  elastic = true\n"+
					`  tpu_workers = { accelerator = dwsfallback_tpu_pool_pair.test.tpu_accelerator, topology = dwsfallback_tpu_pool_pair.test.tpu_topology,
    chips_per_node = dwsfallback_tpu_pool_pair.test.chips_per_node, replicas = 2, min_replicas = 2, max_replicas = 2, cpu = "4", memory = "8Gi" }`),
				ExpectError: patternRE(`(?s)Kueue cannot admit the job as things stand: couldn't assign flavors to pod set tpu-group:.*maximum\s+capacity`),
			},
			{
				// Queued, not elastic: autoscaling defaults off, which Kueue's webhook accepts, and the job is admitted.
				Config: base + oneJob("acc-admit", "admit-plain", `queue = "admit-user-queue"`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("dwsfallback_rayjob.admit-plain", tfjsonpath.New("enable_in_tree_autoscaling"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue("dwsfallback_rayjob.admit-plain", tfjsonpath.New("admitted_flavor"), knownvalue.StringExact("admit-on-demand")),
				},
			},
			{
				// The cluster re-spelled as its id (as a config that references dwsfallback_cluster.x.id says it):
				// nothing is replaced, not the job, not the queue, not the pools.
				Config: pairConfig(admitID, "on-demand-pool", "dws-pool", 4) +
					strings.Replace(queueConfig(admitID, "admit", 16), `"google.com/tpu" = "1000000000"`, `"google.com/tpu" = "16"`, 1) +
					oneJob(admitID, "admit-plain", `queue = "admit-user-queue"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("dwsfallback_rayjob.admit-plain", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(queueAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(pairAddr, plancheck.ResourceActionUpdate),
				}},
			},
			{
				// A v5e job on a queue whose flavors carry the pool label alone (the wiring the docs once showed): Kueue
				// admits it on the v6e pool's flavor, where it could never be scheduled. The apply fails and says why.
				Config: base + oneJob("acc-admit", "admit-v5e", `queue = "admit-user-queue"
  tpu_workers = { accelerator = "tpu-v5-lite-podslice", topology = "2x4", chips_per_node = 4, cpu = "4", memory = "8Gi" }`),
				ExpectError: patternRE(`(?s)admitted the TPU workers on flavor admit-(on-demand|dws), whose nodes \(node pool\s+(on-demand-pool|dws-pool),\s+ct6e-standard-4t\)\s+have\s+tpu-v6e-slice\s+4x4,\s+but\s+the\s+workers\s+ask\s+for\s+tpu-v5-lite-podslice\s+2x4`),
			},
			{
				Config:      base + oneJob("acc-admit", "admit-autoscale", `queue = "admit-user-queue"`+"\n  enable_in_tree_autoscaling = true"),
				PlanOnly:    true,
				ExpectError: patternRE(`(?s)Kueue refuses autoscaling on this job.*Set elastic = true`),
			},
			{
				// Kueue's webhook refuses this one (the queue label set by hand, so the plan cannot see it): the error
				// says so rather than blaming RBAC, and no job is left in state to be "no longer there" next time.
				Config: base + oneJob("acc-admit", "admit-denied", `labels = { "kueue.x-k8s.io/queue-name" = "admit-user-queue" }`+
					"\n  shutdown_after_job_finishes = false\n  enable_in_tree_autoscaling = false"),
				ExpectError: patternRE(`(?s)refused the job as invalid.*should\s+delete\s+the\s+cluster\s+after\s+finishing`),
			},
			{
				// Someone else's job of the same name: refused before anything is written, and never taken into state,
				// so no destroy can delete it.
				PreConfig: func() {
					kubectl(t, testdata(t, "tutorial-rayjob.yaml", "PREFIX", "admit", "JOB_ID", "9"), "apply", "-f", "-")
					t.Cleanup(func() { kubectl(t, "", "delete", "rayjob", "admit-rayjob-9", "--ignore-not-found") })
				},
				Config:      base + oneJob("acc-admit", "admit-rayjob-9", `queue = "admit-user-queue"`+"\n  elastic = true"),
				ExpectError: patternRE(`(?s)already exists and is not this configuration's`),
			},
			{
				PreConfig: func() {
					if err := jobGone("admit-denied")(nil); err != nil {
						t.Error(err)
					}
					if _, err := adminClients(t).Ray.RayV1().RayJobs("default").Get(context.Background(), "admit-rayjob-9", metav1.GetOptions{}); err != nil {
						t.Errorf("the other job of the same name after the refused create: %v", err)
					}
					// Its owner takes it away; until then it holds quota, and the queue's destroy would rightly refuse.
					kubectl(t, "", "delete", "rayjob", "admit-rayjob-9", "--wait=true")
				},
				Config:             base + oneJob("acc-admit", "admit-denied", `labels = { "kueue.x-k8s.io/queue-name" = "admit-user-queue" }`+"\n  shutdown_after_job_finishes = false\n  enable_in_tree_autoscaling = false"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}
