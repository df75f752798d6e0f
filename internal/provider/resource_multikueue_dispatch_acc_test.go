package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	kptr "k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/localstack"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
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
//   - With the first worker's DWS never provisioning and the second's provisioning, a RayJob submitted to the manager
//     is dispatched to the second worker: the manager's Workload names it in status.clusterName, the job runs there,
//     and the first worker holds no copy. A dwsfallback_rayjob on the manager waits across the hop until admitted,
//     and reports the worker in dispatched_to.
//   - An elastic job sent to the manager's queue is refused at plan time (Kueue has no MultiKueue support for it).
//   - With both provisioning, a job runs on the worker that admitted it first, and the other holds no copy.
//   - When the API server of the worker running the Terraform job stops, Kueue puts the job back in the queue after
//     workerLostTimeout (30 s on the local stack) and dispatches it to the other worker; the next refresh says so.
//
// Not parallel: it stops a worker's API server, which must not be the shared control plane; in the serial phase
// the manager, made first, takes that one.
func TestAccMultiKueue_dispatch(t *testing.T) {
	s := serialStack(t)
	cfg := multiKueueDispatchManager + multiKueueWorkerConfig("mkdw1") + multiKueueWorkerConfig("mkdw2")
	// The same job through Terraform, on the manager: not elastic, Ray's autoscaler off (Kueue refuses it otherwise).
	job := strings.NewReplacer("dwsfallback_tpu_pool_pair.test", "dwsfallback_tpu_pool_pair.mkdw2", "dwsfallback_kueue_queue.test", "dwsfallback_kueue_queue.manager",
		"elastic    = true", "elastic    = false\n  enable_in_tree_autoscaling = false").Replace(jobsConfig("mkd-manager", "mkd", []int{2}, `wait_for = "admitted"`))
	// The tutorial's elastic job, sent to the manager's MultiKueue queue.
	elastic := strings.NewReplacer("dwsfallback_tpu_pool_pair.test", "dwsfallback_tpu_pool_pair.mkdw2",
		"dwsfallback_kueue_queue.test", "dwsfallback_kueue_queue.manager").Replace(jobsConfig("mkd-manager", "mkd", []int{4}, ""))
	setDWS := func(w1, w2 gkeemu.DWSMode) error {
		if !emu.SetClusterDWS("mkdw1", w1, 500*time.Millisecond) || !emu.SetClusterDWS("mkdw2", w2, 500*time.Millisecond) {
			return fmt.Errorf("no worker clusters to set DWS on")
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(*terraform.State) error {
					if err := setDWS(gkeemu.DWSPending, gkeemu.DWSProvision); err != nil {
						return err
					}
					return dispatchJob(t, "1", "mkdw2")
				},
			},
			{
				Config: cfg + job,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("dwsfallback_rayjob.job2", "admitted", "true"),
					resource.TestCheckResourceAttr("dwsfallback_rayjob.job2", "dispatched_to", "mkdw2"),
				),
			},
			{
				// Read on the manager, counted where the pods are: the worker's DWS pool.
				PreConfig: func() {
					if !waitFor(3*time.Minute, func() bool { return boundOn(t, "mkdw2", "mkd-rayjob-2") }) {
						t.Fatal("the job's pods were not placed on mkdw2's nodes")
					}
				},
				Config: cfg + job,
				Check:  resource.TestMatchResourceAttr("dwsfallback_rayjob.job2", "nodes_by_pool.dws-pool", regexp.MustCompile(`^[1-9]`)),
			},
			{
				Config:      cfg + job + elastic,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Elastic jobs cannot go to MultiKueue workers`),
			},
			{
				PreConfig: func() {
					if err := setDWS(gkeemu.DWSProvision, gkeemu.DWSProvision); err != nil {
						t.Fatal(err)
					}
					if err := dispatchJob(t, "3", ""); err != nil {
						t.Fatal(err)
					}
					if err := loseWorker(t, s, "mkd-rayjob-2", "mkdw2", "mkdw1"); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg + job,
				// Kueue's status.clusterName: it stays mkdw1 even when the returning worker's older copy wins (loseWorker).
				Check: resource.TestCheckResourceAttr("dwsfallback_rayjob.job2", "dispatched_to", "mkdw1"),
			},
		},
	})
}

// dispatchJob submits the tutorial's RayJob to the manager and waits until it runs on one worker and no other worker
// holds a copy of its Workload; want, when set, is the worker it must run on. The job is deleted before returning.
func dispatchJob(t *testing.T, id, want string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var job rayv1.RayJob
	if err := yaml.Unmarshal([]byte(testdata(t, "tutorial-rayjob.yaml", "PREFIX", "mkd", "JOB_ID", id)), &job); err != nil {
		return err
	}
	// Kueue's docs: elastic workloads have no MultiKueue support. Without the annotation Kueue's webhook refuses
	// in-tree autoscaling ("a kueue managed job should only use autoscaling when workload slicing is enabled").
	delete(job.Annotations, "kueue.x-k8s.io/elastic-job")
	job.Spec.RayClusterSpec.EnableInTreeAutoscaling = kptr.To(false)
	job.Namespace = "default"
	manager := clusterClients(t, "mkd-manager")
	if _, err := manager.Ray.RayV1().RayJobs("default").Create(ctx, &job, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("submitting the RayJob to the manager: %w", err)
	}
	defer func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer dcancel()
		wl, _ := managerWorkload(dctx, t, job.Name)
		_ = manager.Ray.RayV1().RayJobs("default").Delete(dctx, job.Name, metav1.DeleteOptions{})
		if !waitFor(2*time.Minute, func() bool { wl, err := managerWorkload(dctx, t, job.Name); return err == nil && wl == nil }) {
			t.Errorf("the manager's Workload of %s stayed after the job was deleted", job.Name)
		}
		// The manager removes the workers' copies on its own time (its garbage collection runs once a minute). A
		// copy left on a worker that then stops answering would hold that worker's queue and fail the destroy.
		if wl == nil {
			return
		}
		gone := time.Now()
		err := wait.PollUntilContextTimeout(dctx, time.Second, 150*time.Second, true, func(ctx context.Context) (bool, error) {
			return noCopies(ctx, t, job.Name, wl.Name), nil
		})
		if err != nil {
			t.Errorf("a worker still holds a copy of %s after the manager's is gone", job.Name)
			return
		}
		t.Logf("the workers' copies of %s went %s after the manager's", job.Name, time.Since(gone).Round(time.Second))
	}()
	return runsOn(ctx, t, job.Name, []string{"mkdw1", "mkdw2"}, func(name string) error {
		if want != "" && name != want {
			return fmt.Errorf("dispatched to %s, want %s", name, want)
		}
		return nil
	})
}

// runsOn waits until the manager's Workload of the RayJob is dispatched, the RayJob is on that worker, and the other
// workers hold no copy of the Workload; check judges the worker.
func runsOn(ctx context.Context, t *testing.T, job string, workers []string, check func(worker string) error) error {
	var last string
	for ctx.Err() == nil {
		time.Sleep(500 * time.Millisecond)
		wl, err := managerWorkload(ctx, t, job)
		if err != nil || wl == nil {
			last = fmt.Sprintf("no Workload on the manager (%v)", err)
			continue
		}
		name := kptr.Deref(wl.Status.ClusterName, "")
		last = fmt.Sprintf("clusterName %q, nominated %v, checks %+v", name, wl.Status.NominatedClusterNames, wl.Status.AdmissionChecks)
		if name == "" {
			continue
		}
		if err := check(name); errors.Is(err, errNotYet) {
			continue
		} else if err != nil {
			return err
		}
		if _, err := clusterClients(t, name).Ray.RayV1().RayJobs("default").Get(ctx, job, metav1.GetOptions{}); err != nil {
			last = fmt.Sprintf("dispatched to %s, which has no RayJob %s (%v)", name, job, err)
			continue
		}
		copies := 0
		for _, w := range workers {
			if w == name {
				continue
			}
			if _, err := clusterClients(t, w).Kueue.KueueV1beta2().Workloads("default").Get(ctx, wl.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				copies++
				last = fmt.Sprintf("runs on %s, but %s still holds Workload %s (%v)", name, w, wl.Name, err)
			}
		}
		if copies == 0 {
			t.Logf("%s runs on %s; no other worker holds a copy", job, name)
			return nil
		}
	}
	return fmt.Errorf("%s was not dispatched to one worker alone: %s", job, last)
}

// noCopies reports whether no worker holds the RayJob or its Workload.
func noCopies(ctx context.Context, t *testing.T, job, workload string) bool {
	for _, w := range []string{"mkdw1", "mkdw2"} {
		c := clusterClients(t, w)
		if _, err := c.Ray.RayV1().RayJobs("default").Get(ctx, job, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return false
		}
		if _, err := c.Kueue.KueueV1beta2().Workloads("default").Get(ctx, workload, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return false
		}
	}
	return true
}

// boundOn reports whether a pod of the RayJob's RayCluster on the worker is bound to a node.
func boundOn(t *testing.T, worker, job string) bool {
	ctx := context.Background()
	w := clusterClients(t, worker)
	rj, err := w.Ray.RayV1().RayJobs("default").Get(ctx, job, metav1.GetOptions{})
	if err != nil || rj.Status.RayClusterName == "" {
		return false
	}
	pods, err := w.Core.Pods("default").List(ctx, metav1.ListOptions{LabelSelector: wellknown.RayClusterLabel + "=" + rj.Status.RayClusterName})
	if err != nil {
		return false
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			return true
		}
	}
	return false
}

// logJobSides logs the job as the manager and the workers see it.
func logJobSides(t *testing.T, job string, clusters ...string) {
	ctx := context.Background()
	for _, c := range append([]string{"mkd-manager"}, clusters...) {
		rj, err := clusterClients(t, c).Ray.RayV1().RayJobs("default").Get(ctx, job, metav1.GetOptions{})
		if err != nil {
			t.Logf("%s: %v", c, err)
			continue
		}
		t.Logf("%s: RayJob %s status %q, RayCluster %q", c, job, rj.Status.JobDeploymentStatus, rj.Status.RayClusterName)
	}
}

// errNotYet tells runsOn to keep waiting.
var errNotYet = errors.New("not yet")

// managerWorkload is the manager's Workload of the RayJob, or nil.
func managerWorkload(ctx context.Context, t *testing.T, job string) (*kueue.Workload, error) {
	wls, err := clusterClients(t, "mkd-manager").Kueue.KueueV1beta2().Workloads("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range wls.Items {
		for _, o := range wls.Items[i].OwnerReferences {
			if o.Kind == "RayJob" && o.Name == job {
				return &wls.Items[i], nil
			}
		}
	}
	return nil, nil
}

// loseWorker stops the API server of the worker running job, waits until Kueue dispatches the job to the other
// worker and its pods are placed there, and starts the API server again. What Kueue then does with the two copies is
// logged, not asserted: at v0.17.0 the copy admitted first wins (bestMatchByCondition in
// pkg/controller/admissionchecks/multikueue/workload.go), which is the returning worker's older one, and the copy the
// job was dispatched to is deleted while the manager's status.clusterName keeps naming it.
func loseWorker(t *testing.T, s *localstack.Stack, job, from, to string) error {
	plane := s.ClusterStack(clusterscope.Ref{Project: testProject, Location: testLocation, Name: from}.String())
	if plane == nil {
		return fmt.Errorf("%s has no control plane", from)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	lost := time.Now()
	plane.StopAPIServer()
	// The stopped worker answers nothing, so only the one the job moves to is looked at.
	err := runsOn(ctx, t, job, []string{to}, func(name string) error {
		if name == from {
			return errNotYet
		}
		if name != to {
			return fmt.Errorf("re-dispatched to %s, want %s", name, to)
		}
		return nil
	})
	if err == nil {
		t.Logf("%s stopped answering; %s was dispatched to %s after %s", from, job, to, time.Since(lost).Round(time.Second))
		if !waitFor(3*time.Minute, func() bool { return boundOn(t, to, job) }) {
			err = fmt.Errorf("%s's pods were not placed on %s's nodes", job, to)
		}
	}
	sctx, scancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer scancel()
	if serr := plane.StartAPIServer(sctx); serr != nil {
		return fmt.Errorf("starting %s's API server again: %w", from, serr)
	}
	// Until the manager reaches the worker again, it cannot remove the copy left there, and the manager's Workload
	// of the job (with its quota) stays when the job is deleted.
	wctx, wcancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer wcancel()
	if _, aerr := multikueue.WaitActive(wctx, clusterClients(t, "mkd-manager").Kueue, from); aerr != nil {
		return fmt.Errorf("the manager did not reconnect to %s: %w", from, aerr)
	}
	waitFor(time.Minute, func() bool {
		_, gone := clusterClients(t, to).Ray.RayV1().RayJobs("default").Get(wctx, job, metav1.GetOptions{})
		return apierrors.IsNotFound(gone)
	})
	logJobSides(t, job, from, to)
	return err
}

// TestAccExample_multiRegion applies examples/multi-region as a user would, with three workers whose first and third
// DWS never provision: every job runs in the second worker, and the example's dispatched_to output says so. Then the
// third worker is retired in one apply, added again in one more, and moved to another zone in a third, while the
// jobs run: they stay where they are, and each plan after is empty.
func TestAccExample_multiRegion(t *testing.T) {
	t.Parallel()
	planeTurn(t)
	requireStack(t)
	tf := exampleRun(t, "multi-region")
	three := []string{"-var", "manager_cluster=mre-manager", "-var", `worker_clusters=["mre-a","mre-b","mre-c"]`,
		"-var", `worker_locations=["us-east5-a","us-east5-b","us-east5-b"]`, "-var", "deletion_protection=false"}
	vars := three
	t.Cleanup(func() { tf.run(append([]string{"apply", "-destroy", "-auto-approve", "-input=false"}, vars...)...) })
	// The workers first, to set their DWS; then the jobs.
	tf.mustRun(append([]string{"apply", "-auto-approve", "-input=false", "-var", "jobs=0"}, vars...)...)
	if !emu.SetClusterDWS("mre-a", gkeemu.DWSPending, 0) || !emu.SetClusterDWS("mre-b", gkeemu.DWSProvision, 500*time.Millisecond) ||
		!emu.SetClusterDWS("mre-c", gkeemu.DWSPending, 0) {
		t.Fatal("the example's workers are not in the emulator")
	}
	tf.mustRun(append([]string{"apply", "-auto-approve", "-input=false"}, vars...)...)
	checkDispatched(t, tf)
	tf.mustRun(append([]string{"plan", "-detailed-exitcode", "-input=false"}, vars...)...)
	jobs := rayJobUIDs(t, "mre-b")
	if len(jobs) != 2 {
		t.Fatalf("RayJobs on mre-b: %v, want the two jobs", jobs)
	}

	// Retired in one apply: the worker leaves the config before the config's update drops it.
	vars = append(slices.Clone(three), "-var", `worker_clusters=["mre-a","mre-b"]`)
	tf.mustRun(append([]string{"apply", "-auto-approve", "-input=false"}, vars...)...)
	tf.mustRun(append([]string{"plan", "-detailed-exitcode", "-input=false"}, vars...)...)
	if cfg, err := multikueue.FindConfig(context.Background(), clusterClients(t, "mre-manager").Kueue, "multikueue"); err != nil || cfg == nil ||
		!slices.Equal(cfg.Spec.Clusters, []string{"mre-a", "mre-b"}) {
		t.Fatalf("MultiKueueConfig after the retirement: %+v, %v; want clusters [mre-a mre-b]", cfg, err)
	}
	checkDispatched(t, tf)
	if got := rayJobUIDs(t, "mre-b"); !maps.Equal(got, jobs) {
		t.Errorf("RayJobs on mre-b after the retirement: %v, want them undisturbed: %v", got, jobs)
	}

	// Added again to the running setup, in one apply.
	vars = three
	tf.mustRun(append([]string{"apply", "-auto-approve", "-input=false"}, vars...)...)
	tf.mustRun(append([]string{"plan", "-detailed-exitcode", "-input=false"}, vars...)...)
	checkDispatched(t, tf)
	if got := rayJobUIDs(t, "mre-b"); !maps.Equal(got, jobs) {
		t.Errorf("RayJobs on mre-b after a worker was added: %v, want them undisturbed: %v", got, jobs)
	}

	// Moved to another zone in one apply: its cluster, pool pair and queue are made again there, and the worker
	// changes in place (the config keeps listing it).
	vars = append(slices.Clone(three), "-var", `worker_locations=["us-east5-a","us-east5-b","us-east5-a"]`)
	tf.mustRun(append([]string{"apply", "-auto-approve", "-input=false"}, vars...)...)
	tf.mustRun(append([]string{"plan", "-detailed-exitcode", "-input=false"}, vars...)...)
	if cl, err := gke.FindCluster(context.Background(), gkeAPIForCheck(), clusterscope.Ref{Project: testProject, Location: "us-east5-a", Name: "mre-c"}.String()); err != nil || cl == nil {
		t.Fatalf("mre-c in us-east5-a: %v, %v", cl, err)
	}
	checkDispatched(t, tf)
	if got := rayJobUIDs(t, "mre-b"); !maps.Equal(got, jobs) {
		t.Errorf("RayJobs on mre-b after a worker moved: %v, want them undisturbed: %v", got, jobs)
	}
}

// checkDispatched requires the example's two jobs to run on mre-b, the one worker whose DWS provisions.
func checkDispatched(t *testing.T, tf *tfRun) {
	t.Helper()
	var dispatched map[string]string
	if err := json.Unmarshal([]byte(tf.mustRun("output", "-json", "dispatched_to")), &dispatched); err != nil {
		t.Fatal(err)
	}
	if len(dispatched) != 2 {
		t.Fatalf("dispatched_to = %v, want two jobs", dispatched)
	}
	for job, worker := range dispatched {
		if worker != "mre-b" {
			t.Errorf("%s dispatched to %q, want mre-b (the others' DWS never provisions)", job, worker)
		}
	}
}

// rayJobUIDs are the RayJobs in the worker's default namespace, by name: a job made again has another UID.
func rayJobUIDs(t *testing.T, cluster string) map[string]string {
	t.Helper()
	list, err := clusterClients(t, cluster).Ray.RayV1().RayJobs("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, j := range list.Items {
		out[j.Name] = string(j.UID)
	}
	return out
}
