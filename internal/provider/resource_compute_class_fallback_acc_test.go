package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeclass"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// classQueueConfig is a queue whose TPU flavor targets the class, not a pool: Kueue gives quota, the class capacity.
func classQueueConfig(cluster, p string) string {
	return fmt.Sprintf(`
resource "dwsfallback_kueue_queue" "test" {
  cluster = %[1]q
  name    = "%[2]s-cluster-queue"
  flavors = [
    { name = "%[2]s-default-cpu", node_labels = { "cloud.google.com/gke-nodepool" = "default-pool" },
      quotas = { cpu = "10", memory = "20Gi", "google.com/tpu" = "0" } },
    { name = "%[2]s-tpu-class", node_labels = { "cloud.google.com/compute-class" = dwsfallback_compute_class.test.name },
      quotas = { cpu = "100", memory = "200Gi", "google.com/tpu" = "32" } },
  ]
  local_queues = [{ namespace = "default", name = "%[2]s-user-queue" }]
}
`, cluster, p)
}

func nodesByPool(job string, pools map[string]int) statecheck.StateCheck {
	want := map[string]knownvalue.Check{}
	for p, n := range pools {
		want[p] = knownvalue.Int64Exact(int64(n))
	}
	return statecheck.ExpectKnownValue("dwsfallback_rayjob."+job, tfjsonpath.New("nodes_by_pool"), knownvalue.MapExact(want))
}

// TestAccComputeClass_capacityFallback is issue 23's point, through Terraform: with plan A's zone out of capacity,
// job 1's TPU workers run on plan B's flex-start nodes, because GKE's autoscaler backs plan A off and tries the class's
// next priority; with capacity back, job 2 runs on plan A once the backoff ends, as GKE's autoscaler does.
func TestAccComputeClass_capacityFallback(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createRayCluster(t, "acc-cap"))
	base := classPairConfig("acc-cap", "tpu-fallback") + classConfig("acc-cap", "tpu-fallback") + classQueueConfig("acc-cap", "cap")
	job := func(id int, after string) string {
		extra := `wait_for = "running"
  compute_class = dwsfallback_compute_class.test.name
  timeouts = { create = "5m" }`
		cfg := jobsConfig("acc-cap", "cap", []int{id}, extra)
		return strings.Replace(cfg, "depends_on = [dwsfallback_kueue_queue.test]", "depends_on = [dwsfallback_kueue_queue.test"+after+"]", 1)
	}
	capacity := emu.For("acc-cap")
	t.Cleanup(capacity.Clear)
	var running map[string]string
	var backedOff func() error
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					capacity.StockoutScaleUps("on-demand-pool", true)
					backedOff = watchClassBackoff(cp, "tpu-fallback", "0")
				},
				Config: base + job(1, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					nodesByPool("job1", map[string]int{"default-pool": 1, "flex-start-pool": 4}),
					statecheck.ExpectKnownValue("dwsfallback_rayjob.job1", tfjsonpath.New("admitted_flavor"), knownvalue.StringExact("cap-tpu-class")),
				},
				Check: func(*terraform.State) error {
					nodes, err := placedOn(cp, "cap-rayjob-1", "worker", "flex-start-pool", 4)
					if err != nil {
						return err
					}
					for _, n := range nodes {
						if n.Labels[wellknown.FlexStartLabel] != "true" || hasTaint(n, wellknown.QueuedTaint) || !hasTaint(n, wellknown.ComputeClassLabel) {
							return fmt.Errorf("flex-start node %s: labels %v, taints %v; want gke-flex-start, the class's taint, no gke-queued", n.Name, n.Labels, n.Spec.Taints)
						}
					}
					return backedOff()
				},
			},
			{
				PreConfig: func() { capacity.StockoutScaleUps("on-demand-pool", false) },
				Config:    base + job(1, "") + job(2, ", dwsfallback_rayjob.job1"),
				ConfigStateChecks: []statecheck.StateCheck{
					nodesByPool("job2", map[string]int{"default-pool": 1, "on-demand-pool": 4}),
				},
				Check: func(*terraform.State) error {
					running = podPlacement(cp, "cap-rayjob-")
					return classWithoutTolerationPends(cp, "tpu-fallback")
				},
			},
			{
				// A priority added while both jobs run, then removed: the class changes in place, every pod keeps
				// its node, and the plan after each apply is empty.
				Config: strings.Replace(base, `    { nodepools = [dwsfallback_tpu_pool_pair.test.flex_start.name] },
`, `    { nodepools = [dwsfallback_tpu_pool_pair.test.flex_start.name] },
    { machine_type = "ct6e-standard-4t", spot = true, tpu = { type = "tpu-v6e-slice", count = 4, topology = "4x4" } },
`, 1) + job(1, "") + job(2, ", dwsfallback_rayjob.job1"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("dwsfallback_compute_class.test", plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error { return samePods(t, running, podPlacement(cp, "cap-rayjob-")) },
			},
			{
				Config: base + job(1, "") + job(2, ", dwsfallback_rayjob.job1"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("dwsfallback_compute_class.test", plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error { return samePods(t, running, podPlacement(cp, "cap-rayjob-")) },
			},
		},
	})
}

// podPlacement is the live pods of the default namespace whose names begin with prefix: name to UID and node.
func podPlacement(cp *clusterPlane, prefix string) map[string]string {
	cp.t.Helper()
	list, err := cp.clients().Core.Pods("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		cp.t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range list.Items {
		if strings.HasPrefix(p.Name, prefix) && p.DeletionTimestamp == nil {
			out[p.Name] = string(p.UID) + " on " + p.Spec.NodeName
		}
	}
	return out
}

func samePods(t *testing.T, want, got map[string]string) error {
	t.Helper()
	if len(want) == 0 {
		return fmt.Errorf("no job pods were recorded running")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("the jobs' pods changed (-before +after):\n%s", diff)
	}
	return nil
}

// watchClassBackoff watches the class from before it exists and returns a check that GKE's status of it said, at
// some point, that priority id was backed off for lack of resources. The backoff is GKE's 5 minutes on the stack's
// shortened clock (3 s), so a read after the apply may come after it ended: every status write is seen instead.
func watchClassBackoff(cp *clusterPlane, class, id string) func() error {
	cp.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cp.t.Cleanup(cancel)
	w, err := cp.clients().Dynamic.Resource(gkeclass.GVR).Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", class).String()})
	if err != nil {
		cp.t.Fatalf("watching ComputeClass %s: %v", class, err)
	}
	done := make(chan struct{})
	var last []any
	seen := false
	go func() {
		defer close(done)
		defer w.Stop()
		for ev := range w.ResultChan() {
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			last, _, _ = unstructured.NestedSlice(u.Object, "status", "priorityStatuses")
			if seen = priorityBackedOff(last, id); seen {
				return
			}
		}
	}()
	return func() error {
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cancel()
			<-done
		}
		if !seen {
			return fmt.Errorf("ComputeClass %s status (last seen %v): want priority %s backed off with OutOfResources at some point", class, last, id)
		}
		return nil
	}
}

func priorityBackedOff(prios []any, id string) bool {
	for _, it := range prios {
		ps, _ := it.(map[string]any)
		conds, _ := ps["conditions"].([]any)
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if ps["identifier"] == id && m["reason"] == "OutOfResources" {
				return true
			}
		}
	}
	return false
}

// classWithoutTolerationPends: a pod that selects the class but does not tolerate its taint gets no node, and GKE's
// autoscaler says why. (On GKE a webhook adds the toleration to such pods; the local stack has none, so a pod made
// elsewhere needs it in its spec.)
func classWithoutTolerationPends(cp *clusterPlane, class string) error {
	cp.t.Helper()
	core := cp.clients().Core
	ctx := context.Background()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "no-class-toleration", Namespace: "default"},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{wellknown.ComputeClassLabel: class},
			Tolerations:  []corev1.Toleration{{Key: wellknown.TPUResource, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			Containers: []corev1.Container{{Name: "c", Image: "busybox", Resources: corev1.ResourceRequirements{
				Limits: corev1.ResourceList{wellknown.TPUResource: apiresource.MustParse("4")}, Requests: corev1.ResourceList{wellknown.TPUResource: apiresource.MustParse("4")}}}},
		},
	}
	created, err := core.Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	defer func() { _ = core.Pods("default").Delete(ctx, pod.Name, metav1.DeleteOptions{}) }()
	var seen string
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := core.Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil || p.Spec.NodeName != "" {
			return false, fmt.Errorf("pod without the class's toleration: node %q (%v)", p.Spec.NodeName, err)
		}
		events, err := core.Events("default").List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("involvedObject.uid", string(created.UID)).String()})
		if err != nil {
			return false, err
		}
		for _, e := range events.Items {
			seen = e.Message
			if e.Reason == gkeemu.ReasonNotTriggerScaleUp && strings.Contains(e.Message, "untolerated taint {"+wellknown.ComputeClassLabel+": "+class+"}") {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("pod without the class's toleration: %v; last event %q", err, seen)
	}
	return nil
}

// TestAccExample_capacityFallback checks examples/capacity-fallback from outside, as its README promises: with plan
// A's pools (one per job: a multi-host slice pool holds one slice) stocked out before the apply, as a zone without
// capacity stocks them all out, every job's TPU workers run on plan B's pools.
func TestAccExample_capacityFallback(t *testing.T) {
	stackTest(t, 1)
	ref := createRayCluster(t, "acc-example-cap")
	tf := exampleRun(t, "capacity-fallback")
	vars := []string{"-var", "create_cluster=false", "-var", "cluster=" + ref.String(), "-var", "install_kueue=false",
		"-var", "on_demand_pool=od-cap", "-var", "flex_start_pool=fs-cap", "-var", "compute_class=cap-example"}
	emu.For(ref.Name).StockoutScaleUps("od-cap", true)
	emu.For(ref.Name).StockoutScaleUps("od-cap-2", true)
	t.Cleanup(func() {
		emu.For(ref.Name).Clear()
		tf.run(append([]string{"apply", "-destroy", "-auto-approve", "-input=false"}, vars...)...)
	})
	tf.mustRun(append([]string{"apply", "-auto-approve", "-input=false"}, vars...)...)
	// A pipeline checks drift with -detailed-exitcode: right after the apply, nothing may change, outputs included
	// (the class's health was written before GKE reported on the class).
	if out, code := tf.planExit(vars...); code != 0 {
		t.Errorf("plan right after the apply: exit %d, want 0\n%s", code, out)
	}
	var byJob map[string]map[string]int
	if err := json.Unmarshal([]byte(tf.mustRun("output", "-json", "nodes_by_pool")), &byJob); err != nil {
		t.Fatal(err)
	}
	if len(byJob) != 2 {
		t.Fatalf("nodes_by_pool = %v, want two jobs", byJob)
	}
	for job, pools := range byJob {
		if pools["fs-cap"]+pools["fs-cap-2"] != 4 || pools["od-cap"]+pools["od-cap-2"] != 0 {
			t.Errorf("%s runs on %v; want its TPU workers on 4 nodes of fs-cap and fs-cap-2, none on od-cap or od-cap-2", job, pools)
		}
	}
}
