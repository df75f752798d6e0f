package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// soakRound is how long each round of the soak lasts: one RayJob deleted and one made per round.
const soakRound = 30 * time.Second

// soakLength is how long the soak runs: DWSFALLBACK_SOAK (`make soak` sets an hour), else 5.5 minutes, longer than
// the controllers' start-up windows (controller-runtime gives up on a cache that has not synced after 2 minutes).
func soakLength(t *testing.T) time.Duration {
	if v := os.Getenv("DWSFALLBACK_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 3*soakRound {
			t.Fatalf("DWSFALLBACK_SOAK = %q: want a duration of at least %s (a round of each DWS mode)", v, 3*soakRound)
		}
		return d
	}
	return 5*time.Minute + soakRound
}

// TestAccSoak_tutorialWithGcloud follows a user of the local stack: the tutorial's gcloud commands, get-credentials
// rewriting the kubeconfig the stack exports, then RayJobs made and deleted through Terraform round after round, some
// admitted on demand, some through DWS, some left waiting for DWS. No component of the stack restarts, every deleted
// RayJob is gone within 10 s of its delete, and nothing is left behind.
func TestAccSoak_tutorialWithGcloud(t *testing.T) {
	t.Parallel()
	s := requireStack(t)
	const cluster = "acc-soak"
	ref := clusterscope.Ref{Project: testProject, Location: testLocation, Name: cluster}
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	// The file `make local-up` exports to users, as a copy: other tests' kubectl reads the stack's own while this one
	// runs, and the context gcloud makes current would send them to this test's cluster.
	exported, err := os.ReadFile(s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, exported, 0o600); err != nil {
		t.Fatal(err)
	}
	g.Setenv("KUBECONFIG=" + kubeconfig)
	g.Run(testutil.TutorialCluster(cluster, testProject)...)
	t.Cleanup(func() {
		if err := deleteCluster(gkeAPIForCheck(), ref); err != nil {
			t.Errorf("deleting cluster %s: %v", cluster, err)
		}
	})
	g.Run("container", "clusters", "get-credentials", cluster, "--location="+testLocation)
	for _, args := range testutil.TutorialPools(cluster, "on-demand-pool", "dws-pool") {
		g.Run(args...)
	}

	rounds := int(soakLength(t) / soakRound)
	start := time.Now()
	watch := &deleteWatch{seen: map[string]bool{}}
	var plane *kube.Clients
	var planeName string
	var steps []resource.TestStep
	for r := range rounds {
		steps = append(steps, resource.TestStep{
			PreConfig: func() {
				time.Sleep(time.Until(start.Add(time.Duration(r) * soakRound)))
				// Every third round DWS finds no capacity: the job that falls back waits for it.
				mode := gkeemu.DWSProvision
				if r%3 == 1 {
					mode = gkeemu.DWSPending
				}
				if !emu.SetClusterDWS(cluster, mode, 500*time.Millisecond) {
					t.Fatalf("no DWS for %s", cluster)
				}
				if r == 1 {
					planeName, plane = soakPlane(t, ref.String())
					watch.start(t.Context(), plane)
				}
			},
			Config: queueConfig(cluster, "soak", 16) + soakJobs(cluster, r+1, r+2, r+3),
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy: func(*terraform.State) error {
			err := watch.stop()
			t.Logf("soak of %d rounds in %s: deletes %v; workloads seen %v", rounds, time.Since(start).Round(time.Second), watch.deletes, watch.states)
			if err != nil {
				return err
			}
			// Pods go through the garbage collector after their RayCluster: a moment, not a leftover.
			for range 60 {
				if err = soakLeftovers(plane); err == nil {
					return nil
				}
				time.Sleep(500 * time.Millisecond)
			}
			return err
		},
		Steps: steps,
	})
	for _, want := range []string{"soak-on-demand", "soak-dws", "waiting for DWS"} {
		if !watch.states[want] {
			t.Errorf("no Workload was ever %q: the soak did not cover it (seen %v)", want, watch.states)
		}
	}
	for _, r := range s.Restarts() {
		if r.Plane == planeName {
			t.Errorf("restarted during the soak: %s", r)
		}
	}
}

// soakJobs are RayJobs on the pools gcloud made, not waiting for admission: some wait for DWS for a whole round.
func soakJobs(cluster string, ids ...int) string {
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, `
resource "dwsfallback_rayjob" "job%[2]d" {
  cluster    = %[1]q
  name       = "soak-rayjob-%[2]d"
  queue      = "soak-user-queue"
  elastic    = true
  wait_for   = "none"
  entrypoint = "python /app/train.py"
  files      = { "train.py" = "print('training')\n" }
  image      = "rayproject/ray:2.53.0-py311"
  head       = { cpu = "2", memory = "4Gi", node_selector = { "cloud.google.com/gke-nodepool" = "default-pool" } }
  tpu_workers = {
    accelerator = "tpu-v6e-slice", topology = "4x4", chips_per_node = 4
    replicas = 1, min_replicas = 1, max_replicas = 2
    cpu = "8", memory = "16Gi"
  }
  depends_on = [dwsfallback_kueue_queue.test]
}
`, cluster, id)
	}
	return b.String()
}

// soakPlane is the control plane serving the cluster, and its name as Restart.Plane gives it.
func soakPlane(t *testing.T, cluster string) (string, *kube.Clients) {
	st := stack.ClusterStack(cluster)
	if st == nil {
		t.Fatalf("%s has no control plane after an apply", cluster)
	}
	return st.Plane(), adminClients(t, st)
}

// deleteWatch follows the soak's RayJobs: how long each took from its delete to its end, and what each Workload
// was seen as.
type deleteWatch struct {
	mu      sync.Mutex
	deletes []time.Duration
	seen    map[string]bool
	late    []string
	states  map[string]bool
	cancel  context.CancelFunc
	done    chan struct{}
}

// soakPrefix names every object of the soak's: the shared control plane may hold other tests' objects.
const soakPrefix = "soak-"

func (w *deleteWatch) start(ctx context.Context, c *kube.Clients) {
	ctx, w.cancel = context.WithCancel(ctx)
	w.done = make(chan struct{})
	go w.run(ctx, c)
}

// run polls the soak's RayJobs (a watch would miss nothing more: a delete sets deletionTimestamp, which the list
// shows).
func (w *deleteWatch) run(ctx context.Context, c *kube.Clients) {
	defer close(w.done)
	deleting, before := map[string]time.Time{}, map[string]bool{}
	for ctx.Err() == nil {
		// Taken before the request: the list's own latency does not count against the job.
		now := time.Now()
		list, err := c.Ray.RayV1().RayJobs("default").List(ctx, metav1.ListOptions{})
		if err == nil {
			present := map[string]bool{}
			for _, j := range list.Items {
				if !strings.HasPrefix(j.Name, soakPrefix) {
					continue
				}
				present[j.Name] = true
				if dt := j.DeletionTimestamp; dt != nil && deleting[j.Name].IsZero() {
					deleting[j.Name] = dt.Time
				}
			}
			// A job deleted and gone between two lists took less than the interval.
			for name := range before {
				if !present[name] && deleting[name].IsZero() {
					deleting[name] = now.Add(-250 * time.Millisecond)
				}
			}
			before = present
			w.mu.Lock()
			for name, at := range deleting {
				if present[name] {
					continue
				}
				// deletionTimestamp has whole seconds: the figure errs long, by under a second.
				d := now.Sub(at)
				w.deletes = append(w.deletes, d.Round(100*time.Millisecond))
				if d > 10*time.Second {
					w.late = append(w.late, fmt.Sprintf("%s took %s", name, d.Round(time.Second)))
				}
				delete(deleting, name)
			}
			w.mu.Unlock()
		}
		// Every poll, not once a round: a job waits for DWS only until the next round turns provisioning back on,
		// and a look at the round's start raced that switch.
		w.classify(ctx, c)
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (w *deleteWatch) stop() error {
	if w.cancel == nil {
		return fmt.Errorf("the soak never watched its RayJobs")
	}
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.late) > 0 {
		return fmt.Errorf("deleted RayJobs gone more than 10 s after their delete: %s", strings.Join(w.late, "; "))
	}
	return nil
}

// classify records what each Workload is now: admitted on a flavor, or holding quota while DWS has not provisioned.
func (w *deleteWatch) classify(ctx context.Context, c *kube.Clients) {
	list, err := c.Kueue.KueueV1beta2().Workloads("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.states == nil {
		w.states = map[string]bool{}
	}
	for _, wl := range list.Items {
		if wl.Spec.QueueName != "soak-user-queue" {
			continue
		}
		admitted := apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueuev1beta2.WorkloadAdmitted)
		reserved := apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueuev1beta2.WorkloadQuotaReserved)
		switch {
		case admitted && wl.Status.Admission != nil:
			for _, ps := range wl.Status.Admission.PodSetAssignments {
				if f, ok := ps.Flavors["google.com/tpu"]; ok {
					w.states[string(f)] = true
				}
			}
		case reserved:
			w.states["waiting for DWS"] = true
		}
	}
}

// soakLeftovers names what the soak's jobs left on the cluster after the destroy.
func soakLeftovers(c *kube.Clients) error {
	if c == nil {
		return nil
	}
	ctx, opts, ours := context.Background(), metav1.ListOptions{}, func(name string) bool { return strings.HasPrefix(name, soakPrefix) }
	var left []string
	keep := func(kind string, names []string) {
		for _, n := range names {
			left = append(left, kind+" "+n)
		}
	}
	jobs, err := c.Ray.RayV1().RayJobs("default").List(ctx, opts)
	if err != nil {
		return err
	}
	keep("RayJob", soakNames(jobs.Items, func(j rayv1.RayJob) bool { return ours(j.Name) }, func(j rayv1.RayJob) string { return j.Name }))
	rcs, err := c.Ray.RayV1().RayClusters("default").List(ctx, opts)
	if err != nil {
		return err
	}
	keep("RayCluster", soakNames(rcs.Items, func(r rayv1.RayCluster) bool { return ours(r.Name) }, func(r rayv1.RayCluster) string { return r.Name }))
	wls, err := c.Kueue.KueueV1beta2().Workloads("default").List(ctx, opts)
	if err != nil {
		return err
	}
	keep("Workload", soakNames(wls.Items, func(w kueuev1beta2.Workload) bool { return w.Spec.QueueName == "soak-user-queue" },
		func(w kueuev1beta2.Workload) string { return w.Name }))
	cms, err := c.Core.ConfigMaps("default").List(ctx, opts)
	if err != nil {
		return err
	}
	keep("ConfigMap", soakNames(cms.Items, func(cm corev1.ConfigMap) bool { return ours(cm.Name) }, func(cm corev1.ConfigMap) string { return cm.Name }))
	pods, err := c.Core.Pods("default").List(ctx, opts)
	if err != nil {
		return err
	}
	keep("Pod", soakNames(pods.Items, func(p corev1.Pod) bool { return p.DeletionTimestamp == nil && ours(p.Name) },
		func(p corev1.Pod) string { return p.Name }))
	if len(left) > 0 {
		return fmt.Errorf("left after the destroy: %s", strings.Join(left, ", "))
	}
	return nil
}

// soakNames are the names of the items that are the soak's.
func soakNames[T any](items []T, ours func(T) bool, name func(T) string) []string {
	var out []string
	for _, it := range items {
		if ours(it) {
			out = append(out, name(it))
		}
	}
	return out
}
