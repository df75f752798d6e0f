package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// createRayCluster makes a RUNNING cluster as the tutorial's gcloud command does (RayOperator add-on, 3 nodes of
// n2-standard-16 in default-pool), so that KubeRay's operator runs for it, and deletes it when the test ends.
func createRayCluster(t *testing.T, name string) clusterscope.Ref {
	t.Helper()
	return createRayClusterIn(t, testLocation, name)
}

// createRayClusterIn is createRayCluster in another location.
func createRayClusterIn(t *testing.T, location, name string) clusterscope.Ref {
	t.Helper()
	ref := createClusterIn(t, location, &containerpb.Cluster{
		Name: name, InitialClusterVersion: "1.34", InitialNodeCount: 3,
		NodeConfig:   &containerpb.NodeConfig{MachineType: "n2-standard-16"},
		AddonsConfig: &containerpb.AddonsConfig{RayOperatorConfig: &containerpb.RayOperatorConfig{Enabled: true}},
	})
	return ref
}

// rayPods lists the pods of a job's RayCluster, by role ("head" or "worker").
func rayPods(cp *clusterPlane, job, role string) []corev1.Pod {
	cp.t.Helper()
	list, err := cp.clients().Core.Pods("default").List(context.Background(), metav1.ListOptions{
		LabelSelector: "ray.io/node-type=" + role})
	if err != nil {
		cp.t.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if strings.HasPrefix(p.Name, job+"-") {
			out = append(out, p)
		}
	}
	return out
}

// placedOn checks that every pod of the job in role runs on a node of pool, and returns those nodes.
func placedOn(cp *clusterPlane, job, role, pool string, want int) (map[string]*corev1.Node, error) {
	cp.t.Helper()
	pods := rayPods(cp, job, role)
	if len(pods) != want {
		return nil, fmt.Errorf("%s has %d %s pods, want %d", job, len(pods), role, want)
	}
	nodes := map[string]*corev1.Node{}
	for _, p := range pods {
		if p.Status.Phase != corev1.PodRunning || p.Spec.NodeName == "" {
			return nil, fmt.Errorf("%s pod %s is %s on %q, want Running on a node", role, p.Name, p.Status.Phase, p.Spec.NodeName)
		}
		n, err := cp.clients().Core.Nodes().Get(context.Background(), p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		if got := n.Labels[wellknown.NodePoolLabel]; got != pool {
			return nil, fmt.Errorf("%s pod %s runs on %s of pool %q, want pool %q", role, p.Name, n.Name, got, pool)
		}
		nodes[n.Name] = n
	}
	return nodes, nil
}

func hasTaint(n *corev1.Node, key string) bool {
	for _, tt := range n.Spec.Taints {
		if tt.Key == key && tt.Effect == corev1.TaintEffectNoSchedule {
			return true
		}
	}
	return false
}

// poolNodes counts the Node objects of a pool in the emulated cluster.
func poolNodes(cp *clusterPlane, pool string) int {
	cp.t.Helper()
	list, err := cp.clients().Core.Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: wellknown.NodePoolLabel + "=" + pool})
	if err != nil {
		cp.t.Fatal(err)
	}
	return len(list.Items)
}

// TestAccRayJob_runsOnItsPools is the tutorial's second half for real: KubeRay runs both jobs once Kueue admits them;
// job 1's four TPU workers land on four on-demand-pool nodes that the autoscaler adds from zero, job 2's on four
// dws-pool nodes that DWS provisions, tainted cloud.google.com/gke-queued; heads on default-pool. A pod without the
// gke-queued toleration cannot use those nodes. With the jobs gone, both pools shrink back to zero.
func TestAccRayJob_runsOnItsPools(t *testing.T) {
	stackTest(t, 1)
	ref := createRayCluster(t, "acc-run")
	cp := on(t, ref)
	// The plane may have served an earlier test's cluster, and the shared one's marks count every plane: only this
	// test's jobs' dashboard calls, recorded from now on, are this test's.
	egressBefore := cp.stack().EgressMark()
	dashboard := regexp.MustCompile(`run-rayjob-[12]-\w+-head-svc\.default\.svc\.cluster\.local:8265`)
	base := pairConfig("acc-run", "on-demand-pool", "dws-pool", 4) + queueConfig("acc-run", "run", 16)
	// Job 2 is submitted once job 1 runs, as the tutorial submits its second job after the first.
	jobs := jobsConfig("acc-run", "run", []int{1}, `wait_for = "running"`) + strings.Replace(
		jobsConfig("acc-run", "run", []int{2}, `wait_for = "running"`),
		"depends_on = [dwsfallback_kueue_queue.test]", "depends_on = [dwsfallback_kueue_queue.test, dwsfallback_rayjob.job1]", 1)
	count := func(job string, pools map[string]int) statecheck.StateCheck {
		want := map[string]knownvalue.Check{}
		for p, n := range pools {
			want[p] = knownvalue.Int64Exact(int64(n))
		}
		return statecheck.ExpectKnownValue("dwsfallback_rayjob."+job, tfjsonpath.New("nodes_by_pool"), knownvalue.MapExact(want))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: base + jobs,
				ConfigStateChecks: []statecheck.StateCheck{
					count("job1", map[string]int{"default-pool": 1, "on-demand-pool": 4}),
					count("job2", map[string]int{"default-pool": 1, "dws-pool": 4}),
					statecheck.ExpectKnownValue("dwsfallback_rayjob.job1", tfjsonpath.New("job_deployment_status"), knownvalue.StringExact("Running")),
					statecheck.ExpectKnownValue("dwsfallback_rayjob.job2", tfjsonpath.New("admitted_flavor"), knownvalue.StringExact("run-dws")),
					statecheck.ExpectKnownValue("dwsfallback_rayjob.job1", tfjsonpath.New("dashboard_url"),
						knownvalue.StringRegexp(regexp.MustCompile(`^run-rayjob-1-\w+-head-svc\.default\.svc\.cluster\.local:8265$`))),
				},
				Check: func(*terraform.State) error {
					if _, err := placedOn(cp, "run-rayjob-1", "worker", "on-demand-pool", 4); err != nil {
						return err
					}
					dwsNodes, err := placedOn(cp, "run-rayjob-2", "worker", "dws-pool", 4)
					if err != nil {
						return err
					}
					for _, n := range dwsNodes {
						if !hasTaint(n, wellknown.QueuedTaint) || n.Labels[wellknown.FlexStartLabel] != "true" {
							return fmt.Errorf("dws-pool node %s has taints %v and labels %v, want cloud.google.com/gke-queued and gke-flex-start", n.Name, n.Spec.Taints, n.Labels)
						}
					}
					for _, job := range []string{"run-rayjob-1", "run-rayjob-2"} {
						if _, err := placedOn(cp, job, "head", "default-pool", 1); err != nil {
							return err
						}
					}
					for pool, want := range map[string]int{"on-demand-pool": 4, "dws-pool": 4, "default-pool": 3} {
						if n, err := emu.NodeCount(ref.String(), pool); err != nil || n != want {
							return fmt.Errorf("GKE reports %d nodes in %s (%v), want %d", n, pool, err, want)
						}
					}
					if err := untoleratedPends(cp); err != nil {
						return err
					}
					if socks, err := cp.stack().NonLoopbackSockets(); err != nil || len(socks) > 0 {
						return fmt.Errorf("stack sockets beyond loopback: %v (%v)", socks, err)
					}
					return nil
				},
			},
			{
				// The jobs destroyed while they run: KubeRay's and Kueue's finalizers let go, and the pools shrink
				// back to zero (the on-demand nodes after the scale-down delay, the DWS ones with their request).
				Config: base,
				Check: func(*terraform.State) error {
					return wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
						return poolNodes(cp, "on-demand-pool")+poolNodes(cp, "dws-pool") == 0 && len(rayPods(cp, "run-rayjob", "worker")) == 0, nil
					})
				},
			},
		},
	})
	if got := cp.stack().EgressSince(egressBefore); !slices.ContainsFunc(got, dashboard.MatchString) {
		t.Errorf("egress attempts = %v, want KubeRay's dashboard requests for this test's jobs, refused by the sink", got)
	}
}

// untoleratedPends: a pod for the dws pool that tolerates google.com/tpu but not cloud.google.com/gke-queued stays
// Pending next to the DWS nodes, with the scheduler saying why.
func untoleratedPends(cp *clusterPlane) error {
	cp.t.Helper()
	core := cp.clients().Core
	ctx := context.Background()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "no-queued-toleration", Namespace: "default"},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{wellknown.NodePoolLabel: "dws-pool"},
			Tolerations:  []corev1.Toleration{{Key: wellknown.TPUResource, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			Containers:   []corev1.Container{{Name: "c", Image: "busybox"}},
		},
	}
	if _, err := core.Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return err
	}
	defer func() { _ = core.Pods("default").Delete(ctx, pod.Name, metav1.DeleteOptions{}) }()
	var last *corev1.Pod
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := core.Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = p
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonUnschedulable && strings.Contains(c.Message, "untolerated taint") {
				return true, nil
			}
		}
		return p.Spec.NodeName != "", nil
	})
	if err != nil || last.Spec.NodeName != "" {
		return fmt.Errorf("a pod without the gke-queued toleration: node %q, conditions %v (%v); want Pending on an untolerated taint", last.Spec.NodeName, last.Status.Conditions, err)
	}
	return nil
}

// TestAccRayJob_stockoutFailsEarly: the on-demand zone is out of TPU capacity. Kueue still admits job 1 on
// on-demand (its fallback follows quota, not capacity), and a wait for "running" fails with GKE's autoscaler event
// and the pool, well before its timeout; once capacity is back, the next apply finishes the same job.
func TestAccRayJob_stockoutFailsEarly(t *testing.T) {
	stackTest(t, 1)
	createRayCluster(t, "acc-stock")
	base := pairConfig("acc-stock", "on-demand-pool", "dws-pool", 4) + queueConfig("acc-stock", "stock", 16)
	cfg := base + jobsConfig("acc-stock", "stock", []int{1}, `wait_for = "running"
  timeouts = { create = "10m" }`)
	capacity := emu.For("acc-stock")
	t.Cleanup(capacity.Clear)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				PreConfig: func() { capacity.StockoutScaleUps("on-demand-pool", true) },
				Config:    cfg,
				ExpectError: patternRE(`(?s)node pool on-demand-pool.*Node scale up in zones ` + testLocation +
					` associated with this pod failed: GCE out of resources.*admitted on stock-on-demand`),
			},
			{
				PreConfig: func() { capacity.StockoutScaleUps("on-demand-pool", false) },
				Config:    cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("dwsfallback_rayjob.job1", tfjsonpath.New("nodes_by_pool"),
						knownvalue.MapPartial(map[string]knownvalue.Check{"on-demand-pool": knownvalue.Int64Exact(4)})),
				},
			},
		},
	})
}

// TestAccRayJob_reservationFullFailsEarly: plan A on a specific reservation that another team's pool has filled. The
// job's scale-up fails as GKE's autoscaler classes it (RESERVATION_CAPACITY_EXCEEDED, not out of resources), and the
// wait fails early with what to do about a reservation.
func TestAccRayJob_reservationFullFailsEarly(t *testing.T) {
	stackTest(t, 1)
	createRayCluster(t, "acc-resfull")
	addReservation(t, "acc-res-full", 4)
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	g.Run("container", "node-pools", "create", "other-team", "--cluster=acc-resfull", "--location="+testLocation,
		"--machine-type=ct6e-standard-4t", "--tpu-topology=4x4", "--reservation-affinity=specific", "--reservation=acc-res-full", "--num-nodes=4")
	cfg := reservationPairConfig("acc-resfull", "acc-res-full", "") + queueConfig("acc-resfull", "resfull", 16) +
		jobsConfig("acc-resfull", "resfull", []int{1}, `wait_for = "running"
  timeouts = { create = "10m" }`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config:      cfg,
			ExpectError: patternRE(`(?s)node pool on-demand-pool.*reservation acc-res-full has no room for 4 more VMs \(RESERVATION_CAPACITY_EXCEEDED\).*within the reservation`),
		}},
	})
}
