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
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
)

// jobsConfig is the tutorial's jobs as dwsfallback_rayjob resources, on the pool pair and queue of prefix p, for
// jobs numbered in ids; extra goes into each job.
func jobsConfig(cluster, p string, ids []int, extra string) string {
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, `
resource "dwsfallback_rayjob" "job%[3]d" {
  cluster    = %[1]q
  name       = "%[2]s-rayjob-%[3]d"
  queue      = "%[2]s-user-queue"
  elastic    = true
  entrypoint = "python /app/train.py"
  files      = { "train.py" = "print('training')\n" }
  runtime_env = { pip = ["jax[tpu]==0.8.2", "pandas==2.3.3"] }
  image      = "rayproject/ray:2.53.0-py311"
  head       = { cpu = "2", memory = "4Gi", node_selector = { "cloud.google.com/gke-nodepool" = "default-pool" } }
  tpu_workers = {
    accelerator    = dwsfallback_tpu_pool_pair.test.tpu_accelerator
    topology       = dwsfallback_tpu_pool_pair.test.tpu_topology
    chips_per_node = dwsfallback_tpu_pool_pair.test.chips_per_node
    replicas = 1, min_replicas = 1, max_replicas = 2
    cpu = "8", memory = "16Gi"
  }
  depends_on = [dwsfallback_kueue_queue.test]
  %[4]s
}
`, cluster, p, id, extra)
	}
	return b.String()
}

// TestAccRayJob_fallback is the tutorial's point, through Terraform: job 1 is admitted on on-demand capacity, job 2
// falls back to DWS and is admitted once the simulated DWS provisions; job 3, which DWS has no room for yet, outlasts
// its create timeout and stays queued, untainted; with job 1 gone, a new job goes to on-demand again.
func TestAccRayJob_fallback(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-jobs"))
	base := pairConfig("acc-jobs", "on-demand-pool", "dws-pool", 4) + queueConfig("acc-jobs", "jobs", 16)
	// Fail fast on a stockout: no provisioning retries.
	base = strings.Replace(base, `config = "jobs-dws-config" }`, `config = "jobs-dws-config", retry = { backoff_limit_count = 0 } }`, 1)
	flavor := func(n int, want string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(fmt.Sprintf("dwsfallback_rayjob.job%d", n), tfjsonpath.New("admitted_flavor"), knownvalue.StringExact(want))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy: func(*terraform.State) error {
			_, err := cp.clients().Ray.RayV1().RayJobs("default").Get(context.Background(), "jobs-rayjob-1", metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("RayJob jobs-rayjob-1 still exists after destroy (%v)", err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: base + jobsConfig("acc-jobs", "jobs", []int{1}, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					flavor(1, "jobs-on-demand"),
					statecheck.ExpectKnownValue("dwsfallback_rayjob.job1", tfjsonpath.New("admitted"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("dwsfallback_rayjob.job1", tfjsonpath.New("num_of_hosts"), knownvalue.Int64Exact(4)),
					statecheck.ExpectKnownValue("dwsfallback_rayjob.job1", tfjsonpath.New("files_config_map"), knownvalue.StringExact("jobs-rayjob-1-files")),
				},
			},
			{
				Config: base + jobsConfig("acc-jobs", "jobs", []int{1, 2}, "") + `
data "dwsfallback_rayjob" "job2" {
  cluster    = "acc-jobs"
  name       = dwsfallback_rayjob.job2.name
  depends_on = [dwsfallback_rayjob.job2]
}
data "dwsfallback_workloads" "all" {
  cluster       = "acc-jobs"
  cluster_queue = dwsfallback_kueue_queue.test.name
  depends_on    = [dwsfallback_rayjob.job2]
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					flavor(1, "jobs-on-demand"),
					flavor(2, "jobs-dws"),
					statecheck.ExpectKnownValue("data.dwsfallback_rayjob.job2", tfjsonpath.New("admitted_flavor"), knownvalue.StringExact("jobs-dws")),
					statecheck.ExpectKnownValue("data.dwsfallback_workloads.all", tfjsonpath.New("workloads"), knownvalue.ListPartial(map[int]knownvalue.Check{
						0: knownvalue.ObjectPartial(map[string]knownvalue.Check{"admitted_flavor": knownvalue.StringExact("jobs-on-demand"), "admitted": knownvalue.Bool(true)}),
						1: knownvalue.ObjectPartial(map[string]knownvalue.Check{"admitted_flavor": knownvalue.StringExact("jobs-dws"),
							"admission_checks": knownvalue.MapExact(map[string]knownvalue.Check{"jobs-dws-prov": knownvalue.StringExact("Ready")})}),
					})),
					statecheck.ExpectKnownValue("dwsfallback_rayjob.job2", tfjsonpath.New("admission_checks"),
						knownvalue.MapExact(map[string]knownvalue.Check{"jobs-dws-prov": knownvalue.StringExact("Ready")})),
				},
			},
			{
				// Plan A full, and plan B's one slice held by job 2: GKE keeps job 3's request waiting for room
				// (for 2 minutes, then fails it), so its create timeout ends the wait with a warning, and job 3 stays
				// in state untainted, in its place in the queue.
				PreConfig: func() { cp.setDWS(gkeemu.DWSFail, 200*time.Millisecond) },
				Config:    base + jobsConfig("acc-jobs", "jobs", []int{1, 2, 3}, `timeouts = { create = "20s" }`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("dwsfallback_rayjob.job3", tfjsonpath.New("admitted"), knownvalue.Bool(false)),
				},
			},
			{
				// Job 1 (and the failed job 3) destroyed: destroy returns once their Workloads are gone.
				PreConfig: func() { cp.setDWS(gkeemu.DWSProvision, 500*time.Millisecond) },
				Config:    base + jobsConfig("acc-jobs", "jobs", []int{2}, ""),
			},
			{
				// A new job takes the freed on-demand quota.
				Config: base + jobsConfig("acc-jobs", "jobs", []int{2, 4}, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					flavor(4, "jobs-on-demand"),
				},
			},
		},
	})
}

// TestAccRayJob_tutorialEquivalence: the tutorial's RayJob and ConfigMap made by kubectl, imported, plan no change.
func TestAccRayJob_tutorialEquivalence(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-jequiv"))
	cp.kubectl("", "create", "configmap", "jax-train-script", "--from-file=testdata/train.py")
	t.Cleanup(func() { cp.kubectl("", "delete", "configmap", "jax-train-script", "--ignore-not-found") })
	cp.kubectl(testdata(t, "tutorial-rayjob.yaml", "PREFIX", "equiv", "JOB_ID", "1"), "apply", "-f", "-")
	cfg := fmt.Sprintf(`
resource "dwsfallback_rayjob" "test" {
  cluster          = "acc-jequiv"
  name             = "equiv-rayjob-1"
  queue            = "equiv-user-queue"
  elastic          = true
  entrypoint       = "python /app/train.py"
  files            = { "train.py" = %q }
  files_config_map = "jax-train-script"
  runtime_env      = { pip = ["jax[tpu]==0.8.2", "pandas==2.3.3"] }
  image            = "rayproject/ray:2.53.0-py311"
  head             = { cpu = "2", memory = "4Gi", node_selector = { "cloud.google.com/gke-nodepool" = "default-pool" } }
  tpu_workers = {
    accelerator = "tpu-v6e-slice", topology = "4x4", chips_per_node = 4
    replicas = 1, min_replicas = 1, max_replicas = 2
    cpu = "8", memory = "16Gi"
  }
}
`, testdata(t, "train.py"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:             cfg,
				ResourceName:       "dwsfallback_rayjob.test",
				ImportState:        true,
				ImportStateId:      clusterscope.Ref{Project: testProject, Location: testLocation, Name: "acc-jequiv"}.String() + "/namespaces/default/rayJobs/equiv-rayjob-1",
				ImportStatePersist: true,
			},
			{Config: cfg, PlanOnly: true},
		},
	})
}

// TestAccRayJob_disappears: a job deleted before it finished is planned again; its files ConfigMap changed by hand
// plans a new run.
func TestAccRayJob_disappears(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-jgone"))
	cfg := pairConfig("acc-jgone", "on-demand-pool", "dws-pool", 4) + queueConfig("acc-jgone", "gone", 16) + jobsConfig("acc-jgone", "gone", []int{1}, "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() { cp.kubectl("", "delete", "rayjob", "gone-rayjob-1", "--wait=true") },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("dwsfallback_rayjob.job1", plancheck.ResourceActionCreate),
				}},
			},
			{
				PreConfig: func() {
					cp.kubectl("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: gone-rayjob-1-files, namespace: default}\ndata: {train.py: edited}\n", "apply", "-f", "-")
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("dwsfallback_rayjob.job1", plancheck.ResourceActionReplace),
				}},
			},
			{
				// The run finishes (KubeRay reports Complete) and a refresh records it.
				PreConfig: func() {
					cp.kubectl("", "patch", "rayjob", "gone-rayjob-1", "--subresource=status", "--type=merge",
						"-p", `{"status":{"jobDeploymentStatus":"Complete","jobStatus":"SUCCEEDED"}}`)
				},
				RefreshState: true,
			},
			{
				// KubeRay (or a person) cleans the finished job up: the run stays finished, nothing is resubmitted.
				PreConfig: func() { cp.kubectl("", "delete", "rayjob", "gone-rayjob-1", "--wait=true") },
				Config:    cfg,
				PlanOnly:  true,
			},
		},
	})
}

// driftJobConfig is one job as a platform module writes it: most settings left to their defaults. Its LocalQueue
// does not exist, so Kueue manages the job (queue label, suspended) but never admits it: the API server takes edits
// of its spec, as it does of a job waiting for admission.
func driftJobConfig(cluster, extra string) string {
	return fmt.Sprintf(`
resource "dwsfallback_rayjob" "drift" {
  cluster    = %q
  name       = "drift-job"
  queue      = "drift-no-such-queue"
  wait_for   = "none"
  entrypoint = "python /app/train.py"
  files      = { "train.py" = "print('training')\n" }
  runtime_env = { pip = ["jax[tpu]==0.8.2"] }
  image      = "rayproject/ray:2.53.0-py311"
  head       = { cpu = "2", memory = "4Gi", node_selector = { "cloud.google.com/gke-nodepool" = "default-pool" } }
  tpu_workers = {
    accelerator = "tpu-v6e-slice", topology = "4x4", chips_per_node = 4
    cpu = "8", memory = "16Gi"
  }
  %s
}
`, cluster, extra)
}

// TestAccRayJob_driftByKubectl changes each field the resource manages with kubectl, one at a time, and expects the
// plan to submit the job again (every one of them replaces it); what Kueue and KubeRay do to the job shows nothing.
// Before Read compared the spec, every one of these planned "No changes".
func TestAccRayJob_driftByKubectl(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-jdrift"))
	cfg := driftJobConfig("acc-jdrift", "")
	const addr = "dwsfallback_rayjob.drift"
	worker, head := "/spec/rayClusterSpec/workerGroupSpecs/0", "/spec/rayClusterSpec/headGroupSpec/template/spec"
	cases := []struct{ name, patchType, patch string }{
		{"entrypoint", "merge", `{"spec":{"entrypoint":"python /app/other.py"}}`},
		{"runtime env", "merge", `{"spec":{"runtimeEnvYAML":"pip:\n- jax==0.1\n"}}`},
		{"head image", "json", `[{"op":"replace","path":"` + head + `/containers/0/image","value":"rayproject/ray:2.9.0"}]`},
		{"worker image", "json", `[{"op":"replace","path":"` + worker + `/template/spec/containers/0/image","value":"rayproject/ray:2.9.0"}]`},
		{"head cpu", "json", `[{"op":"replace","path":"` + head + `/containers/0/resources/requests/cpu","value":"3"}]`},
		{"worker memory", "json", `[{"op":"replace","path":"` + worker + `/template/spec/containers/0/resources/limits/memory","value":"32Gi"}]`},
		{"replicas", "json", `[{"op":"replace","path":"` + worker + `/replicas","value":2}]`},
		{"max replicas", "json", `[{"op":"replace","path":"` + worker + `/maxReplicas","value":4}]`},
		{"worker topology selector", "json", `[{"op":"replace","path":"` + worker + `/template/spec/nodeSelector/cloud.google.com~1gke-tpu-topology","value":"2x4"}]`},
		{"head node selector", "json", `[{"op":"replace","path":"` + head + `/nodeSelector/cloud.google.com~1gke-nodepool","value":"other-pool"}]`},
		{"queued toleration removed", "json", `[{"op":"remove","path":"` + worker + `/template/spec/tolerations/1"}]`},
		{"env", "json", `[{"op":"add","path":"` + head + `/containers/0/env","value":[{"name":"A","value":"b"}]}]`},
		{"mount path", "json", `[{"op":"replace","path":"` + head + `/containers/0/volumeMounts/0/mountPath","value":"/code"}]`},
		{"files ConfigMap", "json", `[{"op":"replace","path":"` + head + `/volumes/0/configMap/name","value":"other-files"},` +
			`{"op":"replace","path":"` + worker + `/template/spec/volumes/0/configMap/name","value":"other-files"}]`},
		{"worker's files ConfigMap", "json", `[{"op":"replace","path":"` + worker + `/template/spec/volumes/0/configMap/name","value":"other-files"}]`},
		{"label", "merge", `{"metadata":{"labels":{"team":"b"}}}`},
		{"annotation", "merge", `{"metadata":{"annotations":{"note":"x"}}}`},
		{"queue label", "merge", `{"metadata":{"labels":{"kueue.x-k8s.io/queue-name":"other-queue"}}}`},
		// Not here, because Kueue's webhook refuses them on a job it manages (TestReadSpec covers them): the elastic
		// annotation ("field is immutable"), shutdownAfterJobFinishes false ("a kueue managed job should delete the
		// cluster after finishing") and in-tree autoscaling on a job that is not elastic.
	}
	steps := []resource.TestStep{{Config: cfg}}
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			PreConfig: func() {
				t.Logf("kubectl patch: %s", c.name)
				cp.kubectl("", "patch", "rayjob", "drift-job", "--type="+c.patchType, "-p", c.patch)
			},
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
			}},
		})
	}
	steps = append(steps, resource.TestStep{
		// Labels and annotations of other writers (Kueue's, KubeRay's, kubectl's bookkeeping) are theirs, not drift.
		PreConfig: func() {
			cp.kubectl("", "patch", "rayjob", "drift-job", "--type=merge", "-p",
				`{"metadata":{"labels":{"kueue.x-k8s.io/extra":"x","ray.io/extra":"y"},"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}}}`)
		},
		Config: cfg, PlanOnly: true,
	}, resource.TestStep{
		// A flavor's node label and toleration on a job Kueue never admitted: no Workload accounts for them, so they
		// are a hand change like any other (TestAccDrift_rayJobGenerated shows an admitted flavor's are not).
		PreConfig: func() {
			cp.kubectl("", "patch", "rayjob", "drift-job", "--type=json", "-p",
				`[{"op":"add","path":"`+worker+`/template/spec/nodeSelector/cloud.google.com~1gke-nodepool","value":"dws-pool"},`+
					`{"op":"add","path":"`+worker+`/template/spec/tolerations/-","value":{"key":"kueue-flavor","operator":"Exists","effect":"NoSchedule"}}]`)
		},
		Config: cfg,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
		}},
	})
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: steps})
}

// TestAccRayJob_removedSetting: a setting removed from the configuration plans its default. resubmit_when_deleted
// stayed true in state after its line was deleted, so the provider went on resubmitting a job nobody wanted.
func TestAccRayJob_removedSetting(t *testing.T) {
	stackTest(t, 1)
	createTestCluster(t, "acc-jremoved")
	const addr = "dwsfallback_rayjob.drift"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: driftJobConfig("acc-jremoved", "resubmit_when_deleted = true")},
			{
				Config: driftJobConfig("acc-jremoved", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("resubmit_when_deleted"), knownvalue.Bool(false)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("resubmit_when_deleted"), knownvalue.Bool(false)),
				},
			},
			{Config: driftJobConfig("acc-jremoved", ""), PlanOnly: true},
		},
	})
}

// TestAccRayJob_plansStayEmpty: the tutorial's jobs, planned twenty times right after their apply while Kueue, the
// DWS simulator and KubeRay are still changing them: a job is never planned as gone or changed while it exists.
func TestAccRayJob_plansStayEmpty(t *testing.T) {
	stackTest(t, 1)
	createTestCluster(t, "acc-jempty")
	cfg := pairConfig("acc-jempty", "on-demand-pool", "dws-pool", 4) + queueConfig("acc-jempty", "empty", 16) +
		jobsConfig("acc-jempty", "empty", []int{1, 2}, `wait_for = "none"`)
	steps := []resource.TestStep{{Config: cfg}}
	for range 20 {
		steps = append(steps, resource.TestStep{Config: cfg, PlanOnly: true})
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: steps})
}

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
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-admit"))
	// Plan B's quota is as small as plan A's here, so a two-slice job fits no flavor at all.
	base := pairConfig("acc-admit", "on-demand-pool", "dws-pool", 4) +
		strings.Replace(queueConfig("acc-admit", "admit", 16), `"google.com/tpu" = "1000000000"`, `"google.com/tpu" = "16"`, 1)
	admitID := "projects/" + testProject + "/locations/" + testLocation + "/clusters/acc-admit"
	jobGone := func(name string) func(*terraform.State) error {
		return func(*terraform.State) error {
			_, err := cp.clients().Ray.RayV1().RayJobs("default").Get(context.Background(), name, metav1.GetOptions{})
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
					cp.kubectl(testdata(t, "tutorial-rayjob.yaml", "PREFIX", "admit", "JOB_ID", "9"), "apply", "-f", "-")
					t.Cleanup(func() { cp.kubectl("", "delete", "rayjob", "admit-rayjob-9", "--ignore-not-found") })
				},
				Config:      base + oneJob("acc-admit", "admit-rayjob-9", `queue = "admit-user-queue"`+"\n  elastic = true"),
				ExpectError: patternRE(`(?s)already exists and is not this configuration's`),
			},
			{
				PreConfig: func() {
					if err := jobGone("admit-denied")(nil); err != nil {
						t.Error(err)
					}
					if _, err := cp.clients().Ray.RayV1().RayJobs("default").Get(context.Background(), "admit-rayjob-9", metav1.GetOptions{}); err != nil {
						t.Errorf("the other job of the same name after the refused create: %v", err)
					}
					// Its owner takes it away; until then it holds quota, and the queue's destroy would rightly refuse.
					cp.kubectl("", "delete", "rayjob", "admit-rayjob-9", "--wait=true")
				},
				Config:             base + oneJob("acc-admit", "admit-denied", `labels = { "kueue.x-k8s.io/queue-name" = "admit-user-queue" }`+"\n  shutdown_after_job_finishes = false\n  enable_in_tree_autoscaling = false"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

// TestAccRayJob_driftAmongMany is drift by hand among enough jobs that a refresh reads them from the namespace's
// shared LISTs and answers unchanged ones without the framework (server.go): each changed job is found, and only it.
func TestAccRayJob_driftAmongMany(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-jmany"))
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
					cp.kubectl("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: many-rayjob-2-files, namespace: default}\ndata: {train.py: edited}\n", "apply", "-f", "-")
					cp.kubectl("", "delete", "configmap", "many-rayjob-3-files")
					cp.kubectl("", "delete", "rayjob", "many-rayjob-4", "--wait=true")
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
					cp.kubectl("", "patch", "rayjob", "many-rayjob-5", "--subresource=status", "--type=merge",
						"-p", `{"status":{"jobDeploymentStatus":"Complete","jobStatus":"SUCCEEDED"}}`)
				},
				RefreshState: true,
				Check:        resource.TestCheckResourceAttr("dwsfallback_rayjob.job5", "job_status", "SUCCEEDED"),
			},
			{Config: cfg, PlanOnly: true},
		},
	})
}
