package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kptr "k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
)

// multiKueueWorkerConfig is one worker: a cluster with the RayOperator add-on, the tutorial's pool pair, and its queue
// with no on-demand TPU quota, so that every job waits for DWS there.
func multiKueueWorkerConfig(name string) string {
	pair := strings.Replace(pairConfig(name, "on-demand-pool", "dws-pool", 4), `"dwsfallback_tpu_pool_pair" "test"`, fmt.Sprintf(`"dwsfallback_tpu_pool_pair" %q`, name), 1)
	queue := strings.Replace(queueConfig(name, "mkd", 0), `"dwsfallback_kueue_queue" "test"`, fmt.Sprintf(`"dwsfallback_kueue_queue" %q`, name), 1)
	queue = strings.Replace(queue, fmt.Sprintf("cluster = %q", name), fmt.Sprintf("cluster = dwsfallback_cluster.%s.id", name), 1)
	pair = strings.Replace(pair, fmt.Sprintf("cluster      = %q", name), fmt.Sprintf("cluster      = dwsfallback_cluster.%s.id", name), 1)
	return fmt.Sprintf(`
resource "dwsfallback_cluster" %[1]q {
  name                = %[1]q
  ray_operator        = true
  deletion_protection = false
  depends_on          = [dwsfallback_cluster.manager]
}

resource "dwsfallback_multikueue_worker" %[1]q {
  cluster        = dwsfallback_cluster.manager.id
  name           = %[1]q
  worker_cluster = dwsfallback_cluster.%[1]s.id
  depends_on     = [dwsfallback_kueue_queue.%[1]s]
}
`, name) + pair + queue
}

const multiKueueDispatchManager = `
resource "dwsfallback_cluster" "manager" {
  name                = "mkd-manager"
  deletion_protection = false
}

resource "dwsfallback_multikueue_config" "mk" {
  cluster = dwsfallback_cluster.manager.id
  name    = "mkd"
  workers = [dwsfallback_multikueue_worker.mkdw1.name, dwsfallback_multikueue_worker.mkdw2.name]
}

resource "dwsfallback_kueue_queue" "manager" {
  cluster          = dwsfallback_cluster.manager.id
  name             = "mkd-cluster-queue"
  flavors          = [{ name = "mkd-default", quotas = { cpu = "1000", memory = "1000Gi", "google.com/tpu" = "1000" } }]
  local_queues     = [{ namespace = "default", name = "mkd-user-queue" }]
  admission_checks = [dwsfallback_multikueue_config.mk.admission_check]
}
`

// TestAccMultiKueue_dispatch: a manager and two workers, each worker with the tutorial's DWS pool pair and queue.
// With the first worker's DWS never provisioning and the second's provisioning, a RayJob submitted to the manager is
// dispatched to the second worker: the manager's Workload names it in status.clusterName, the job runs there, and
// the copy on the first worker is gone. A dwsfallback_rayjob on the manager waits across the hop until admitted, and
// reports the worker in dispatched_to.
func TestAccMultiKueue_dispatch(t *testing.T) {
	requireStack(t)
	cfg := multiKueueDispatchManager + multiKueueWorkerConfig("mkdw1") + multiKueueWorkerConfig("mkdw2")
	// The same job through Terraform, on the manager: not elastic, Ray's autoscaler off (Kueue refuses it otherwise).
	job := strings.NewReplacer("dwsfallback_tpu_pool_pair.test", "dwsfallback_tpu_pool_pair.mkdw2", "dwsfallback_kueue_queue.test", "dwsfallback_kueue_queue.manager",
		"elastic    = true", "elastic    = false\n  enable_in_tree_autoscaling = false").Replace(jobsConfig("mkd-manager", "mkd", []int{2}, `wait_for = "admitted"`))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(*terraform.State) error {
					if !emu.SetClusterDWS("mkdw1", gkeemu.DWSPending, 0) || !emu.SetClusterDWS("mkdw2", gkeemu.DWSProvision, 500*time.Millisecond) {
						return fmt.Errorf("no worker clusters to set DWS on")
					}
					return dispatchJob(t)
				},
			},
			{
				Config: cfg + job,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("dwsfallback_rayjob.job2", "admitted", "true"),
					resource.TestCheckResourceAttr("dwsfallback_rayjob.job2", "dispatched_to", "mkdw2"),
				),
			},
		},
	})
}

func dispatchJob(t *testing.T) error {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var job rayv1.RayJob
	if err := yaml.Unmarshal([]byte(testdata(t, "tutorial-rayjob.yaml", "PREFIX", "mkd", "JOB_ID", "1")), &job); err != nil {
		return err
	}
	// Kueue's docs: elastic workloads have no MultiKueue support. Without the annotation Kueue's webhook refuses
	// in-tree autoscaling ("a kueue managed job should only use autoscaling when workload slicing is enabled").
	delete(job.Annotations, "kueue.x-k8s.io/elastic-job")
	job.Spec.RayClusterSpec.EnableInTreeAutoscaling = kptr.To(false)
	job.Namespace = "default"
	manager, w1, w2 := clusterClients(t, "mkd-manager"), clusterClients(t, "mkdw1"), clusterClients(t, "mkdw2")
	if _, err := manager.Ray.RayV1().RayJobs("default").Create(ctx, &job, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("submitting the RayJob to the manager: %w", err)
	}
	defer func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer dcancel()
		_ = manager.Ray.RayV1().RayJobs("default").Delete(dctx, job.Name, metav1.DeleteOptions{})
		for dctx.Err() == nil {
			wls, err := manager.Kueue.KueueV1beta2().Workloads("default").List(dctx, metav1.ListOptions{})
			if err == nil && len(wls.Items) == 0 {
				return
			}
			time.Sleep(500 * time.Millisecond)
		}
	}()
	var last string
	for ctx.Err() == nil {
		wls, err := manager.Kueue.KueueV1beta2().Workloads("default").List(ctx, metav1.ListOptions{})
		if err == nil && len(wls.Items) == 1 {
			wl := wls.Items[0]
			name := kptr.Deref(wl.Status.ClusterName, "")
			last = fmt.Sprintf("clusterName %q, nominated %v, checks %+v", name, wl.Status.NominatedClusterNames, wl.Status.AdmissionChecks)
			if name != "" {
				if name != "mkdw2" {
					return fmt.Errorf("dispatched to %s, want mkdw2 (the only worker whose DWS provisions)", name)
				}
				break
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("the manager's Workload was not dispatched: %s", last)
	}
	for ctx.Err() == nil {
		remote, err := w2.Ray.RayV1().RayJobs("default").Get(ctx, job.Name, metav1.GetOptions{})
		gone, _ := w1.Kueue.KueueV1beta2().Workloads("default").List(ctx, metav1.ListOptions{})
		if err == nil && remote != nil && gone != nil && len(gone.Items) == 0 {
			t.Logf("job %s runs on mkdw2 (status %q); mkdw1 holds no copy", job.Name, remote.Status.JobDeploymentStatus)
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("after dispatch to mkdw2: the RayJob is not there, or mkdw1 still holds a Workload copy")
}

// TestAccExample_multiRegion applies examples/multi-region as a user would, with its first worker's DWS never
// provisioning: every job runs in the second worker, and the example's dispatched_to output says so.
func TestAccExample_multiRegion(t *testing.T) {
	requireStack(t)
	dir := t.TempDir()
	for src, dst := range map[string]string{
		"../../examples/multi-region/main.tf": "multi-region/main.tf",
		"../../examples/tutorial/train.py":    "tutorial/train.py",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, dst)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tf := newTFRun(t, "")
	tf.dir = filepath.Join(dir, "multi-region")
	vars := []string{"-var", "manager_cluster=mre-manager", "-var", `worker_clusters=["mre-a","mre-b"]`,
		"-var", `worker_locations=["us-east5-a","us-east5-b"]`, "-var", "deletion_protection=false"}
	t.Cleanup(func() { tf.run(append([]string{"apply", "-destroy", "-auto-approve", "-input=false"}, vars...)...) })
	// The workers first, to set their DWS; then the jobs.
	tf.mustRun(append([]string{"apply", "-auto-approve", "-input=false", "-var", "jobs=0"}, vars...)...)
	if !emu.SetClusterDWS("mre-a", gkeemu.DWSPending, 0) || !emu.SetClusterDWS("mre-b", gkeemu.DWSProvision, 500*time.Millisecond) {
		t.Fatal("the example's workers are not in the emulator")
	}
	tf.mustRun(append([]string{"apply", "-auto-approve", "-input=false"}, vars...)...)
	var dispatched map[string]string
	if err := json.Unmarshal([]byte(tf.mustRun("output", "-json", "dispatched_to")), &dispatched); err != nil {
		t.Fatal(err)
	}
	if len(dispatched) != 2 {
		t.Fatalf("dispatched_to = %v, want two jobs", dispatched)
	}
	for job, worker := range dispatched {
		if worker != "mre-b" {
			t.Errorf("%s dispatched to %q, want mre-b (mre-a's DWS never provisions)", job, worker)
		}
	}
	tf.mustRun(append([]string{"plan", "-detailed-exitcode", "-input=false"}, vars...)...)
}
