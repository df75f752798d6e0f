package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeclass"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

const classAddr = "dwsfallback_compute_class.test"

// classPairConfig is the tutorial's TPU pair as a ComputeClass's two pools: plan A on demand, plan B flex-start VMs
// without queued provisioning, both joined to class.
func classPairConfig(cluster, class string) string {
	return fmt.Sprintf(`
resource "dwsfallback_tpu_pool_pair" "test" {
  cluster       = %[1]q
  machine_type  = "ct6e-standard-4t"
  tpu_topology  = "4x4"
  max_nodes     = 4
  compute_class = %[2]q
  on_demand     = { name = "on-demand-pool" }
  flex_start    = { name = "flex-start-pool", provisioning = "flex-start-unqueued" }
}
`, cluster, class)
}

// classConfig is the common case: plan A's pool, then plan B's, everything else left to GKE's defaults.
func classConfig(cluster, class string) string {
	return fmt.Sprintf(`
resource "dwsfallback_compute_class" "test" {
  cluster = %[1]q
  name    = %[2]q
  priorities = [
    { nodepools = [dwsfallback_tpu_pool_pair.test.on_demand.name] },
    { nodepools = [dwsfallback_tpu_pool_pair.test.flex_start.name] },
  ]
}
`, cluster, class)
}

func liveClass(cp *clusterPlane, name string) *unstructured.Unstructured {
	cp.t.Helper()
	u, err := cp.clients().Dynamic.Resource(gkeclass.GVR).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		cp.t.Fatalf("reading ComputeClass %s: %v", name, err)
	}
	return u
}

func patchClass(cp *clusterPlane, name, patch string) {
	cp.t.Helper()
	cp.kubectl("", "patch", "computeclass", name, "--type=merge", "-p", patch)
}

func checkClassDestroyed(cp *clusterPlane, name string) func(*terraform.State) error {
	return func(*terraform.State) error {
		_, err := cp.clients().Dynamic.Resource(gkeclass.GVR).Get(context.Background(), name, metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("ComputeClass %s still exists after destroy (%v)", name, err)
		}
		return nil
	}
}

// TestAccComputeClass_basic: a class of two pools, written as GKE's docs write it; the pools carry its label and
// taint; it imports with an empty plan; changes by hand, to a setting left to its default and to its priorities, to
// its pools' label, show in the plan and are undone by the apply.
func TestAccComputeClass_basic(t *testing.T) {
	stackTest(t, 1)
	ref := createTestCluster(t, "acc-class")
	cp := on(t, ref)
	cfg := classPairConfig("acc-class", "tpu-fallback") + classConfig("acc-class", "tpu-fallback")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkClassDestroyed(cp, "tpu-fallback"),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(*terraform.State) error {
					pools := testPools(t, ref)
					for _, name := range []string{"on-demand-pool", "flex-start-pool"} {
						cfg := pools[name].GetConfig()
						if cfg.GetLabels()[wellknown.ComputeClassLabel] != "tpu-fallback" || !gke.HasClassTaint(pools[name], "tpu-fallback") {
							return fmt.Errorf("pool %s: labels %v, taints %v; want the class's label and NoSchedule taint", name, cfg.GetLabels(), cfg.GetTaints())
						}
					}
					spec := liveClass(cp, "tpu-fallback").Object["spec"].(map[string]any)
					prios := spec["priorities"].([]any)
					if len(prios) != 2 || fmt.Sprint(prios[0]) != "map[nodepools:[on-demand-pool]]" || spec["whenUnsatisfiable"] != "DoNotScaleUp" {
						return fmt.Errorf("live spec %v: want on-demand-pool, then flex-start-pool, DoNotScaleUp", spec)
					}
					return nil
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(classAddr, tfjsonpath.New("id"), knownvalue.StringExact(ref.String()+"/computeClasses/tpu-fallback")),
				},
			},
			{
				// GKE's autoscaler has looked at the class by now: its pools are labelled and tainted as it asks.
				PreConfig: func() {
					waitFor(20*time.Second, func() bool { return gkeclass.Health(liveClass(cp, "tpu-fallback")) == "Crd is healthy." })
				},
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(classAddr, tfjsonpath.New("health"), knownvalue.StringExact("Crd is healthy.")),
				},
			},
			{
				Config:                  cfg,
				ResourceName:            classAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			driftStep(cfg, classAddr, "when_unsatisfiable", knownvalue.StringExact("DoNotScaleUp"), func() {
				patchClass(cp, "tpu-fallback", `{"spec":{"whenUnsatisfiable":"ScaleUpAnyway"}}`)
			}),
			{
				PreConfig: func() {
					patchClass(cp, "tpu-fallback", `{"spec":{"priorities":[{"nodepools":["flex-start-pool"]},{"nodepools":["on-demand-pool"]}]}}`)
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(classAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(classAddr, tfjsonpath.New("priorities").AtSliceIndex(0).AtMapKey("nodepools"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("on-demand-pool")})),
				}},
			},
			driftStep(cfg, pairAddr, "compute_class", knownvalue.StringExact("tpu-fallback"), func() {
				c := gkeAPI(t)
				err := c.Mutate(context.Background(), ref.String(), func(ctx context.Context) (*containerpb.Operation, error) {
					return c.API().UpdateNodePool(ctx, &containerpb.UpdateNodePoolRequest{
						Name: ref.String() + "/nodePools/on-demand-pool", Labels: &containerpb.NodeLabels{Labels: map[string]string{}}})
				}, nil)
				if err != nil {
					t.Fatal(err)
				}
			}),
			{
				Config:   cfg,
				PlanOnly: true,
			},
		},
	})
}

// TestAccComputeClass_importFromKubectl: classes written as GKE's docs write them, applied with kubectl, import with
// an empty plan.
func TestAccComputeClass_importFromKubectl(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-class-import"))
	cp.kubectl(`apiVersion: cloud.google.com/v1
kind: ComputeClass
metadata:
  name: cost-optimized
spec:
  priorities:
  - machineFamily: n4
  - machineFamily: n2
    spot: true
  - machineFamily: n2
  whenUnsatisfiable: ScaleUpAnyway
  nodePoolAutoCreation:
    enabled: true
---
apiVersion: cloud.google.com/v1
kind: ComputeClass
metadata:
  name: tpu-v6e
spec:
  priorities:
  - tpu:
      type: tpu-v6e-slice
      count: 4
      topology: 4x4
  - tpu:
      type: tpu-v6e-slice
      count: 4
      topology: 4x4
    flexStart:
      enabled: true
    capacityCheckWaitTimeSeconds: 900
  nodePoolAutoCreation:
    enabled: true
`, "apply", "-f", "-")
	t.Cleanup(func() { cp.kubectl("", "delete", "computeclass", "cost-optimized", "tpu-v6e", "--ignore-not-found") })
	config := `
resource "dwsfallback_compute_class" "cost" {
  cluster = "acc-class-import"
  name    = "cost-optimized"
  priorities = [
    { machine_family = "n4" },
    { machine_family = "n2", spot = true },
    { machine_family = "n2" },
  ]
  when_unsatisfiable      = "ScaleUpAnyway"
  node_pool_auto_creation = true
}

resource "dwsfallback_compute_class" "tpu" {
  cluster = "acc-class-import"
  name    = "tpu-v6e"
  priorities = [
    { tpu = { type = "tpu-v6e-slice", count = 4, topology = "4x4" } },
    { tpu = { type = "tpu-v6e-slice", count = 4, topology = "4x4" }, flex_start = true, capacity_check_wait_time_seconds = 900 },
  ]
  node_pool_auto_creation = true
}
`
	id := fmt.Sprintf("projects/%s/locations/%s/clusters/acc-class-import/computeClasses/", testProject, testLocation)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: config, ResourceName: "dwsfallback_compute_class.cost", ImportState: true, ImportStateId: id + "cost-optimized", ImportStatePersist: true},
			{Config: config, ResourceName: "dwsfallback_compute_class.tpu", ImportState: true, ImportStateId: id + "tpu-v6e", ImportStatePersist: true},
			{Config: config, PlanOnly: true},
		},
	})
}

// TestAccComputeClass_poolsMustJoin: a class naming a pool without its label and taint is refused before anything is
// written, in the words of GKE's status, and says what to set.
func TestAccComputeClass_poolsMustJoin(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-class-join"))
	cfg := strings.Replace(classPairConfig("acc-class-join", "tpu-fallback"), `compute_class = "tpu-fallback"`, "", 1) +
		classConfig("acc-class-join", "tpu-fallback")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkClassDestroyed(cp, "tpu-fallback"),
		Steps: []resource.TestStep{{
			Config: cfg,
			ExpectError: patternRE(`Node pool on-demand-pool does not carry the label cloud.google.com/compute-class=tpu-fallback .*` +
				`set compute_class = "tpu-fallback" on its pool pair`),
		}},
	})
}

// TestAccComputeClass_badInput: each of GKE's rules on a ComputeClass is refused at plan time with a clear message.
func TestAccComputeClass_badInput(t *testing.T) {
	t.Parallel() // plan only: nothing is created
	testutil.RequireAcceptance(t)
	for _, tc := range []struct {
		priorities, name string
		want             *regexp.Regexp
	}{
		{`[{ nodepools = ["a"], machine_family = "n2" }]`, "c", messageRE(`Nodepool field cannot be set along with other nodepool configuration fields`)},
		{`[{ machine_family = "n2", machine_type = "n2-standard-8" }]`, "c", messageRE(`MachineFamily and MachineType cannot be set together`)},
		{`[{ machine_type = "n2-standard-8", min_cores = 8 }]`, "c", messageRE(`MachineType cannot be set together with MinCores/MinMemoryGb`)},
		{`[{ machine_family = "n2", spot = true, flex_start = true }]`, "c", messageRE(`Flex Start provisioning model is incompatible with Spot`)},
		{`[{ machine_family = "n2", capacity_check_wait_time_seconds = 60 }]`, "c", messageRE(`only supported for Flex Start and for multi-host TPUs`)},
		{`[{ tpu = { type = "tpu-v6e-slice", count = 1, topology = "1x1" }, capacity_check_wait_time_seconds = 60 }]`, "c", messageRE(`a tpu-v6e-slice 1x1 slice is one node`)},
		{`[{ tpu = { type = "tpu-v6e-slice", count = 3, topology = "4x4" } }]`, "c", messageRE(`no GKE machine type has 3 tpu-v6e-slice chips per node`)},
		{`[{ tpu = { type = "tpu-v6e-slice", count = 4, topology = "4x4x4" } }]`, "c", messageRE(`takes 2-dimensional topologies`)},
		{`[{ tpu = { type = "tpu-v9", count = 4, topology = "4x4" } }]`, "c", messageRE(`"tpu-v9" is not a TPU accelerator GKE offers`)},
		{`[{ flex_start = true, max_run_duration_seconds = 700000 }]`, "c", messageRE(`flex-start nodes live at most 7 days`)},
		{`[{}]`, "c", messageRE(`priorities[0] sets nothing`)},
		{`[{ machine_family = "n2" }]`, "gke-mine", messageRE(`GKE refuses ComputeClass names that begin with "gke" or "autopilot"`)},
	} {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviders,
			Steps: []resource.TestStep{{
				Config: fmt.Sprintf(`
resource "dwsfallback_compute_class" "bad" {
  cluster    = "no-such-cluster"
  name       = %q
  priorities = %s
}
`, tc.name, tc.priorities),
				PlanOnly:    true,
				ExpectError: tc.want,
			}},
		})
	}
	// A pool pair whose plan B is a queued-provisioning pool cannot join a class.
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config:      strings.Replace(classPairConfig("no-such-cluster", "c"), `, provisioning = "flex-start-unqueued"`, "", 1),
			PlanOnly:    true,
			ExpectError: messageRE(`the cluster autoscaler grows a queued-provisioning pool only for a ProvisioningRequest`),
		}},
	})
}
