package provider

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
)

// The GKE methods each step of the burst test calls: every one of them gets its faults, and every fault must be met.
var (
	createMethods  = []string{"CreateCluster", "GetCluster", "CreateNodePool", "GetOperation"}
	updateMethods  = []string{"SetLabels", "CreateNodePool", "UpdateNodePool", "GetOperation", "GetCluster", "ListNodePools"}
	destroyMethods = []string{"DeleteNodePool", "DeleteCluster", "GetOperation"}
)

// burst makes the next two calls of each method about the cluster fail, alternately with 429 and 503, as GKE does
// under quota pressure and during its own incidents.
func burst(f gkeemu.Faults, methods []string) func() {
	return func() {
		for i, m := range methods {
			status := http.StatusTooManyRequests
			if i%2 == 1 {
				status = http.StatusServiceUnavailable
			}
			f.FailNext(m, 2, status, "")
		}
	}
}

// burstMet checks that the step met every fault burst injected.
func burstMet(f gkeemu.Faults) func(*terraform.State) error {
	return func(*terraform.State) error {
		if left := f.Pending(); len(left) > 0 {
			return fmt.Errorf("faults injected but never met (the step did not call these methods as often): %v", left)
		}
		return nil
	}
}

func clusterAndPairConfig(name string, slices int, label string) string {
	return fmt.Sprintf(`
resource "dwsfallback_cluster" "test" {
  name                = %[1]q
  deletion_protection = false
  labels              = { purpose = %[3]q }
}

resource "dwsfallback_tpu_pool_pair" "test" {
  cluster      = dwsfallback_cluster.test.id
  machine_type = "ct6e-standard-4t"
  tpu_topology = "4x4"
  max_nodes    = 4
  slices       = %[2]d
  on_demand    = { name = "od" }
  flex_start   = { name = "dws" }
}
`, name, slices, label)
}

// Every method the provider calls answers 429 or 503 twice before it works: create, update and destroy all finish.
func TestAccFaults_transientBursts(t *testing.T) {
	t.Parallel() // GKE only, its faults its cluster's
	ref := clusterscope.Ref{Project: testProject, Location: testLocation, Name: "acc-bursts"}
	faults := emu.For(ref.Name)
	t.Cleanup(faults.Clear)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy: func(*terraform.State) error {
			_, err := gkeAPIForCheck().API().GetCluster(context.Background(), &containerpb.GetClusterRequest{Name: ref.String()})
			if !gke.IsNotFound(err) {
				return fmt.Errorf("cluster %s after destroy: %w", ref, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				PreConfig: burst(faults, createMethods),
				Config:    clusterAndPairConfig("acc-bursts", 1, "a"),
				Check:     burstMet(faults),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("flex_start").AtMapKey("status"), knownvalue.StringExact("RUNNING")),
				},
			},
			{
				PreConfig: burst(faults, updateMethods),
				Config:    clusterAndPairConfig("acc-bursts", 2, "b"),
				Check:     burstMet(faults),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("slices"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue("dwsfallback_cluster.test", tfjsonpath.New("labels").AtMapKey("purpose"), knownvalue.StringExact("b")),
				},
			},
			{
				PreConfig: burst(faults, destroyMethods),
				Config:    clusterAndPairConfig("acc-bursts", 2, "b"),
				Destroy:   true,
			},
			{
				// Destroy steps run no Check: this step confirms the destroy met its faults.
				PreConfig: func() {
					if err := burstMet(faults)(nil); err != nil {
						t.Error(err)
					}
				},
				Config:             clusterAndPairConfig("acc-bursts", 2, "b"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

// Two pool pairs on one cluster in one apply: the provider runs one operation per cluster at a time, and both finish.
func TestAccFaults_twoPairsOneCluster(t *testing.T) {
	t.Parallel() // GKE only, on a cluster of its own
	ref := createTestCluster(t, "acc-two-pairs")
	cfg := fmt.Sprintf(`
resource "dwsfallback_tpu_pool_pair" "a" {
  cluster      = %[1]q
  machine_type = "ct6e-standard-4t"
  tpu_topology = "4x4"
  max_nodes    = 4
  on_demand    = { name = "od-a" }
  flex_start   = { name = "dws-a" }
}

resource "dwsfallback_tpu_pool_pair" "b" {
  cluster      = %[1]q
  machine_type = "ct6e-standard-4t"
  tpu_topology = "2x4"
  max_nodes    = 2
  on_demand    = { name = "od-b" }
  flex_start   = { name = "dws-b" }
}
`, ref.Name)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkPairDestroyed(ref, "od-a", "dws-a", "od-b", "dws-b"),
		Steps: []resource.TestStep{{
			Config: cfg,
			Check: func(*terraform.State) error {
				pools := testPools(t, ref)
				for _, n := range []string{"od-a", "dws-a", "od-b", "dws-b"} {
					if pools[n] == nil || pools[n].GetStatus().String() != "RUNNING" {
						return fmt.Errorf("pool %s is not RUNNING: %v", n, pools[n].GetStatus())
					}
				}
				return nil
			},
		}},
	})
}

// An operation on the cluster under way when the apply starts (an upgrade GKE runs by itself, another team's change):
// GKE refuses the pool creation that collides with it ("Cluster is running incompatible operation"), and the apply
// waits it out and finishes.
func TestAccFaults_busyCluster(t *testing.T) {
	t.Parallel() // GKE only, its faults its cluster's
	ref := createTestCluster(t, "acc-busy")
	slow := emu.For(ref.Name)
	t.Cleanup(slow.Clear)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkPairDestroyed(ref, "od", "dws"),
		Steps: []resource.TestStep{{
			PreConfig: func() {
				// Long enough to outlast terraform's start and plan.
				slow.SlowOperations(20 * time.Second)
				if _, err := gkeAPI(t).API().SetLabels(context.Background(), &containerpb.SetLabelsRequest{
					Name: ref.String(), ResourceLabels: map[string]string{"changed": "by-hand"}}); err != nil {
					t.Fatal(err)
				}
				slow.SlowOperations(0)
			},
			Config: pairConfig("acc-busy", "od", "dws", 4),
			Check: func(*terraform.State) error {
				if n := slow.Calls()["CreateNodePool"]; n < 3 {
					return fmt.Errorf("CreateNodePool called %d times: want GKE's busy refusal met and retried before the two pools", n)
				}
				return nil
			},
		}},
	})
}

// An operation slower than the resource's timeout fails the apply with the pool's name; the state keeps the pool, and
// the next apply (no longer slow) finishes with exactly the configured pools.
func TestAccFaults_slowerThanTimeout(t *testing.T) {
	t.Parallel() // GKE only, its faults its cluster's
	ref := createTestCluster(t, "acc-slow")
	slow := emu.For(ref.Name)
	t.Cleanup(slow.Clear)
	base := pairConfig("acc-slow", "od", "dws", 4)
	withTimeout := base[:len(base)-2] + "  timeouts = { create = \"2s\" }\n}\n"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkPairDestroyed(ref, "od", "dws"),
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { slow.SlowOperations(5 * time.Second) },
				Config:      withTimeout,
				ExpectError: patternRE(`(?s)creating TPU node pool \(od\).*deadline exceeded.*timeouts.create \(\S+\) ran out while GKE was still working`),
			},
			{
				PreConfig: func() { slow.SlowOperations(0) },
				Config:    base,
				Check: func(*terraform.State) error {
					pools := testPools(t, ref)
					if len(pools) != 3 || pools["od"] == nil || pools["dws"] == nil {
						return fmt.Errorf("want default-pool, od and dws; have %v", poolNames(pools))
					}
					return nil
				},
			},
		},
	})
}

// A refresh after the cluster was deleted out of band: the pool pair leaves state and is planned again, no error.
func TestAccFaults_clusterGone(t *testing.T) {
	t.Parallel() // GKE only, on a cluster of its own
	ref := createTestCluster(t, "acc-gone-cluster")
	cfg := pairConfig("acc-gone-cluster", "od", "dws", 4)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig:          func() { deleteTestCluster(t, ref) },
				Config:             cfg,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

// The same for the Kubernetes side: a queue on a cluster that GKE no longer has leaves state at refresh, no error.
func TestAccFaults_clusterGoneQueue(t *testing.T) {
	stackTest(t, 1)
	// What the queue made goes with the cluster, as on GKE: nothing to clean up after it.
	ref := createTestCluster(t, "acc-gone-queue")
	cfg := fmt.Sprintf(`
resource "dwsfallback_kueue_queue" "test" {
  cluster      = %q
  name         = "gonequeue-cluster-queue"
  flavors      = [{ name = "gonequeue-cpu", quotas = { cpu = "4", memory = "8Gi" } }]
  local_queues = [{ namespace = "default", name = "gonequeue-user-queue" }]
}
`, ref.Name)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig:          func() { deleteTestCluster(t, ref) },
				RefreshState:       true,
				ExpectNonEmptyPlan: true,
				Check: func(s *terraform.State) error {
					if _, ok := s.RootModule().Resources[queueAddr]; ok {
						return fmt.Errorf("%s is still in state after its cluster was deleted", queueAddr)
					}
					return nil
				},
			},
		},
	})
}

// Ctrl-C in the middle of creating the pool pair: terraform stops the provider, the apply fails, and the next apply
// finishes with exactly the configured pools: no "already exists", nothing orphaned.
func TestAccFaults_interruptedCreate(t *testing.T) {
	t.Parallel() // GKE only, its faults its cluster's
	ref := createTestCluster(t, "acc-interrupt")
	slow := emu.For(ref.Name)
	t.Cleanup(slow.Clear)
	tf := newTFRun(t, pairConfig(ref.Name, "od", "dws", 4), "DWSFALLBACK_CONTAINER_ENDPOINT="+emuEndpoint)
	slow.SlowOperations(3 * time.Second)
	var out bytes.Buffer
	cmd := tf.interruptible(&out, "apply", "-auto-approve")
	deadline := time.Now().Add(time.Minute)
	for testPools(t, ref)["od"] == nil {
		if time.Now().After(deadline) {
			interrupt(cmd)
			t.Fatalf("the on-demand pool was never created:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	interrupt(cmd)
	if err := cmd.Wait(); err == nil {
		t.Fatalf("the interrupted apply succeeded:\n%s", out.String())
	}
	t.Logf("interrupted apply:\n%s", out.String())
	slow.SlowOperations(0)

	second := tf.mustRun("apply", "-auto-approve")
	if strings.Contains(second, "already exists") {
		t.Errorf("the second apply met its own pool:\n%s", second)
	}
	pools := testPools(t, ref)
	if len(pools) != 3 || pools["od"] == nil || pools["dws"] == nil {
		t.Errorf("want default-pool, od and dws after the second apply; have %v", poolNames(pools))
	}
	if out, _ := tf.run("plan", "-detailed-exitcode"); !strings.Contains(out, "No changes") {
		t.Errorf("plan after the second apply is not empty:\n%s", out)
	}
	tf.mustRun("destroy", "-auto-approve")
	if pools := testPools(t, ref); len(pools) != 1 {
		t.Errorf("pools left after destroy: %v", poolNames(pools))
	}
}
