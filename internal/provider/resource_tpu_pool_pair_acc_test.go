package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

const pairAddr = "dwsfallback_tpu_pool_pair.test"

func pairConfig(cluster, onDemand, flex string, maxNodes int) string {
	return fmt.Sprintf(`
resource "dwsfallback_tpu_pool_pair" "test" {
  cluster      = %[1]q
  machine_type = "ct6e-standard-4t"
  tpu_topology = "4x4"
  min_nodes    = 0
  max_nodes    = %[4]d
  on_demand    = { name = %[2]q }
  flex_start   = { name = %[3]q }
}
`, cluster, onDemand, flex, maxNodes)
}

func checkPairDestroyed(ref clusterscope.Ref, names ...string) func(*terraform.State) error {
	return func(*terraform.State) error {
		pools, err := gke.ListPools(context.Background(), gkeAPIForCheck(), ref.String())
		if err != nil {
			return err
		}
		for _, n := range names {
			if pools[n] != nil {
				return fmt.Errorf("node pool %s still exists after destroy", n)
			}
		}
		return nil
	}
}

func TestAccTPUPoolPair_basic(t *testing.T) {
	t.Parallel() // GKE only, on clusters of its own
	ref := createTestCluster(t, "acc-basic")
	var onDemandEtag string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkPairDestroyed(ref, "od", "od-2", "dws", "dws-2", "dws-b", "dws-b-2"),
		Steps: []resource.TestStep{
			{
				Config: pairConfig("acc-basic", "od", "dws", 4),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("id"), knownvalue.StringExact(ref.String()+"/nodePools/od,dws")),
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("tpu_accelerator"), knownvalue.StringExact("tpu-v6e-slice")),
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("chips_per_node"), knownvalue.Int64Exact(4)),
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("nodes_per_slice"), knownvalue.Int64Exact(4)),
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("chips_per_slice"), knownvalue.Int64Exact(16)),
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("on_demand").AtMapKey("status"), knownvalue.StringExact("RUNNING")),
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("on_demand").AtMapKey("reservation_affinity"), knownvalue.StringExact("none")),
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("flex_start").AtMapKey("flex_start_enabled"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("flex_start").AtMapKey("queued_provisioning"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("flex_start").AtMapKey("node_labels"),
						knownvalue.MapExact(map[string]knownvalue.Check{"cloud.google.com/gke-nodepool": knownvalue.StringExact("dws"),
							"cloud.google.com/gke-tpu-accelerator": knownvalue.StringExact("tpu-v6e-slice"), "cloud.google.com/gke-tpu-topology": knownvalue.StringExact("4x4")})),
				},
			},
			{
				ResourceName:            pairAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				// A second slice is a second pool of each plan (a multi-host slice pool holds one), added in place; the
				// plans' pools then share a label that node_labels gives the Kueue flavor.
				Config: withSlices(pairConfig("acc-basic", "od", "dws", 4), 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(pairAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("max_chips"), knownvalue.Int64Exact(32)),
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("on_demand").AtMapKey("node_labels"),
						knownvalue.MapExact(map[string]knownvalue.Check{wellknown.SliceGroupLabel: knownvalue.StringExact("od"),
							"cloud.google.com/gke-tpu-accelerator": knownvalue.StringExact("tpu-v6e-slice"), "cloud.google.com/gke-tpu-topology": knownvalue.StringExact("4x4")})),
				},
				Check: func(*terraform.State) error {
					pools := testPools(t, ref)
					for name, group := range map[string]string{"od": "od", "od-2": "od", "dws": "dws", "dws-2": "dws"} {
						np := pools[name]
						if got := np.GetConfig().GetLabels()[wellknown.SliceGroupLabel]; got != group || np.GetAutoscaling().GetMaxNodeCount() != 4 {
							return fmt.Errorf("pool %s: slice group %q, max nodes %d; want %q and 4 (pools %v)", name, got, np.GetAutoscaling().GetMaxNodeCount(), group, poolNames(pools))
						}
					}
					if !pools["dws-2"].GetQueuedProvisioning().GetEnabled() || !pools["dws-2"].GetConfig().GetFlexStart() {
						return fmt.Errorf("dws-2 is not a queued flex-start pool as dws is")
					}
					onDemandEtag = pools["od"].GetEtag()
					return nil
				},
			},
			{
				ResourceName:            pairAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				// Renaming the flex-start pool replaces that plan's pools only: the resource updates, the on-demand pools stay.
				Config: withSlices(pairConfig("acc-basic", "od", "dws-b", 4), 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(pairAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("id"), knownvalue.StringExact(ref.String()+"/nodePools/od,dws-b")),
				},
				Check: func(*terraform.State) error {
					pools := testPools(t, ref)
					if pools["dws"] != nil || pools["dws-2"] != nil || pools["dws-b"] == nil || pools["dws-b-2"] == nil {
						return fmt.Errorf("want dws and dws-2 replaced by dws-b and dws-b-2, have pools %v", poolNames(pools))
					}
					if pools["od"].GetEtag() != onDemandEtag {
						return fmt.Errorf("the on-demand pool was touched by a flex-start rename")
					}
					return nil
				},
			},
			{
				// Back to one slice: the further pools go, the first ones stay.
				Config: pairConfig("acc-basic", "od", "dws-b", 4),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(pairAddr, plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					pools := testPools(t, ref)
					if pools["od-2"] != nil || pools["dws-b-2"] != nil || pools["od"] == nil || pools["dws-b"] == nil {
						return fmt.Errorf("want od and dws-b alone, have pools %v", poolNames(pools))
					}
					if _, grouped := pools["od"].GetConfig().GetLabels()[wellknown.SliceGroupLabel]; grouped {
						return fmt.Errorf("od keeps its slice-group label with one slice")
					}
					return nil
				},
			},
			{Config: pairConfig("acc-basic", "od", "dws-b", 4), PlanOnly: true},
		},
	})
}

// withSlices gives the one pool pair of cfg n slices a plan.
func withSlices(cfg string, n int) string {
	return strings.Replace(cfg, "  max_nodes    = 4\n", fmt.Sprintf("  max_nodes    = 4\n  slices       = %d\n", n), 1)
}

func TestAccTPUPoolPair_drift(t *testing.T) {
	t.Parallel() // GKE only, its calls counted on its cluster
	ref := createTestCluster(t, "acc-drift")
	var autoscalingCalls int
	cfg := pairConfig("acc-drift", "od", "dws", 4)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkPairDestroyed(ref, "od", "dws"),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				// Someone keeps the on-demand slice up by hand, as `gcloud container clusters update --node-pool od
				// --min-nodes 4 --max-nodes 4` does (a multi-host pool's only other bounds GKE takes).
				PreConfig: func() {
					c := gkeAPI(t)
					if err := c.Mutate(context.Background(), ref.String(), func(ctx context.Context) (*containerpb.Operation, error) {
						return c.API().UpdateCluster(ctx, &containerpb.UpdateClusterRequest{Name: ref.String(), Update: &containerpb.ClusterUpdate{
							DesiredNodePoolId:          "od",
							DesiredNodePoolAutoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, MinNodeCount: 4, MaxNodeCount: 4},
						}})
					}, nil); err != nil {
						t.Fatal(err)
					}
				},
				Config:             cfg,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(pairAddr, plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					if got := testPools(t, ref)["od"].GetAutoscaling().GetMinNodeCount(); got != 0 {
						return fmt.Errorf("apply did not restore the on-demand pool's min nodes: %d, want 0", got)
					}
					return nil
				},
			},
			{
				// The same by the node-pool call (`gcloud container node-pools update od --min-nodes 4`): the plan shows
				// it, and the apply repairs that pool alone.
				PreConfig: func() {
					setBounds(t, ref, "od", 4, 4)
					autoscalingCalls = emu.For(ref.Name).Calls()["SetNodePoolAutoscaling"]
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(pairAddr, plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					pools := testPools(t, ref)
					if od := pools["od"].GetAutoscaling(); od.GetMinNodeCount() != 0 || od.GetMaxNodeCount() != 4 {
						return fmt.Errorf("after the apply: on-demand bounds %d..%d; want 0..4", od.GetMinNodeCount(), od.GetMaxNodeCount())
					}
					if n := emu.For(ref.Name).Calls()["SetNodePoolAutoscaling"] - autoscalingCalls; n != 1 {
						return fmt.Errorf("the apply set autoscaling %d times, want once (the drifted pool only)", n)
					}
					return nil
				},
			},
			{Config: cfg, PlanOnly: true},
		},
	})
}

// setBounds changes a pool's autoscaling bounds out of band, as gcloud does.
func setBounds(t *testing.T, ref clusterscope.Ref, pool string, minNodes, maxNodes int32) {
	t.Helper()
	c := gkeAPI(t)
	if err := c.Mutate(context.Background(), ref.String(), func(ctx context.Context) (*containerpb.Operation, error) {
		return c.API().SetNodePoolAutoscaling(ctx, &containerpb.SetNodePoolAutoscalingRequest{Name: ref.String() + "/nodePools/" + pool,
			Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, MinNodeCount: minNodes, MaxNodeCount: maxNodes}})
	}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestAccTPUPoolPair_disappears(t *testing.T) {
	t.Parallel() // GKE only, on clusters of its own
	ref := createTestCluster(t, "acc-gone")
	cfg := pairConfig("acc-gone", "od", "dws", 4)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkPairDestroyed(ref, "od", "dws"),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				// One pool deleted by hand: the plan creates that pool, in place, and leaves the other alone.
				PreConfig: func() {
					if err := gke.DeletePool(context.Background(), gkeAPI(t), ref.String(), "od"); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(pairAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("on_demand").AtMapKey("status"), knownvalue.StringExact("RUNNING")),
				},
			},
			{
				// Both gone (the whole pair deleted by hand): the resource leaves state and is created again.
				PreConfig: func() {
					c := gkeAPI(t)
					for _, n := range []string{"od", "dws"} {
						if err := gke.DeletePool(context.Background(), c, ref.String(), n); err != nil {
							t.Fatal(err)
						}
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(pairAddr, plancheck.ResourceActionCreate),
				}},
			},
		},
	})
}

func TestAccTPUPoolPair_stockout(t *testing.T) {
	t.Parallel() // GKE only, its faults its cluster's
	ref := createTestCluster(t, "acc-stockout")
	t.Cleanup(emu.For(ref.Name).Clear)
	cfg := pairConfig("acc-stockout", "od", "dws", 4)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkPairDestroyed(ref, "od", "dws"),
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { emu.For(ref.Name).Stockout("dws", 1) },
				Config:      cfg,
				ExpectError: regexp.MustCompile(`(?s)creating TPU node pool \(dws\).*GCE_STOCKOUT`),
			},
			{
				// The failed apply kept the on-demand pool in state (nothing orphaned); the next apply finishes the job.
				PreConfig: func() {
					if testPools(t, ref)["od"] == nil {
						t.Fatal("the on-demand pool is gone after the flex-start stockout")
					}
				},
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("flex_start").AtMapKey("status"), knownvalue.StringExact("RUNNING")),
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("on_demand").AtMapKey("status"), knownvalue.StringExact("RUNNING")),
				},
			},
		},
	})
}

func poolNames(pools map[string]*containerpb.NodePool) []string {
	var out []string
	for n := range pools {
		out = append(out, n)
	}
	return out
}

// The provider's default location changing under a configuration that names the cluster bare points the pair at
// another cluster: the plan replaces the pair there, though the pair's own attributes are unchanged (the
// unchanged-plan shortcut must not answer for it).
func TestAccTPUPoolPair_providerLocationChanges(t *testing.T) {
	t.Parallel() // GKE only, on clusters of its own
	createTestCluster(t, "acc-moves")
	provider := func(location string) string {
		return fmt.Sprintf("provider \"dwsfallback\" {\n  project  = %q\n  location = %q\n}\n", testProject, location)
	}
	cfg := pairConfig("acc-moves", "od", "dws", 4)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: provider(testLocation) + cfg},
			{Config: provider(testLocation) + cfg, PlanOnly: true},
			{
				Config:             provider("us-central1-b") + cfg, // a zone that offers v6e
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(pairAddr, tfjsonpath.New("location"), knownvalue.StringExact("us-central1-b")),
					plancheck.ExpectResourceAction(pairAddr, plancheck.ResourceActionReplace),
				}},
			},
		},
	})
}

// TestAccTPUPoolPair_defaults is a pair written as platform modules write it, min_nodes left to its default: a
// minimum raised by hand with gcloud on the on-demand pool is seen and undone. It planned "No changes" while the plan
// shortcut skipped the framework's Defaults. (A removed setting planning its default is TestAccRayJob_removedSetting:
// a pair's min_nodes can only be 0 while its flex-start pool uses queued provisioning.)
func TestAccTPUPoolPair_defaults(t *testing.T) {
	t.Parallel() // GKE only, on clusters of its own
	ref := createTestCluster(t, "acc-defaults")
	noMin := strings.Replace(pairConfig("acc-defaults", "od", "dws", 4), "  min_nodes    = 0\n", "", 1)
	minOf := func(pool string, want int32) func(*terraform.State) error {
		return func(*terraform.State) error {
			if got := testPools(t, ref)[pool].GetAutoscaling().GetMinNodeCount(); got != want {
				return fmt.Errorf("pool %s min nodes = %d, want %d", pool, got, want)
			}
			return nil
		}
	}
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
		plancheck.ExpectResourceAction(pairAddr, plancheck.ResourceActionUpdate),
		plancheck.ExpectKnownValue(pairAddr, tfjsonpath.New("min_nodes"), knownvalue.Int64Exact(0)),
	}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkPairDestroyed(ref, "od", "dws"),
		Steps: []resource.TestStep{
			{Config: noMin, Check: minOf("od", 0)},
			{
				// The reproduction, by gcloud on a pair that never set min_nodes.
				PreConfig: func() {
					g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
					g.Run("container", "clusters", "update", "acc-defaults", "--node-pool=od", "--location="+ref.Location,
						"--enable-autoscaling", "--min-nodes=4", "--max-nodes=4")
				},
				Config: noMin, ConfigPlanChecks: update, Check: minOf("od", 0),
			},
			{Config: noMin, PlanOnly: true},
		},
	})
}

// TestAccTPUPoolPair_errorRecreated: a pool GKE puts in ERROR after the pair was applied is recreated by the next
// apply, as the status attribute's description says; the other pool is kept.
func TestAccTPUPoolPair_errorRecreated(t *testing.T) {
	t.Parallel() // GKE only, on a cluster of its own
	ref := createTestCluster(t, "acc-broken")
	cfg := pairConfig("acc-broken", "od", "dws", 4)
	var odCreated string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkPairDestroyed(ref, "od", "dws"),
		Steps: []resource.TestStep{
			{Config: cfg, Check: func(*terraform.State) error { odCreated = testPools(t, ref)["od"].GetEtag(); return nil }},
			{
				PreConfig: func() {
					if n := emu.For(ref.Name).BreakPool("dws", "Instance group manager failed: GCE_STOCKOUT"); n != 1 {
						t.Fatalf("broke %d pools named dws in %s, want 1", n, ref.Name)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(pairAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(pairAddr, tfjsonpath.New("flex_start").AtMapKey("status")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("flex_start").AtMapKey("status"), knownvalue.StringExact("RUNNING")),
				},
				Check: func(*terraform.State) error {
					pools := testPools(t, ref)
					if s := pools["dws"].GetStatus(); s != containerpb.NodePool_RUNNING {
						return fmt.Errorf("dws pool is %s after the apply, want RUNNING (recreated)", s)
					}
					if pools["od"].GetEtag() != odCreated {
						return fmt.Errorf("the on-demand pool was touched")
					}
					return nil
				},
			},
			{Config: cfg, PlanOnly: true},
		},
	})
}

// TestAccTPUPoolPair_gcloudEquivalence: pools made by the tutorial's gcloud commands and pools made by this resource
// are equal field by field, and importing the gcloud-made ones plans no change.
func TestAccTPUPoolPair_gcloudEquivalence(t *testing.T) {
	t.Parallel() // GKE only, on clusters of its own
	byGcloud := createTestCluster(t, "by-gcloud")
	byTerraform := createTestCluster(t, "by-terraform")
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	for _, cmd := range testutil.TutorialPools("by-gcloud", "on-demand-pool", "dws-pool") {
		g.Run(cmd...)
	}
	fromGcloud := testPools(t, byGcloud)
	tutorial := `
resource "dwsfallback_tpu_pool_pair" "test" {
  cluster      = %q
  machine_type = "ct6e-standard-4t"
  tpu_topology = "4x4"
  min_nodes    = 0
  max_nodes    = 4
  on_demand    = { name = "on-demand-pool" }
  flex_start   = { name = "dws-pool" }
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			importTutorialPair(fmt.Sprintf(tutorial, "by-gcloud"), byGcloud),
			{
				Config:   fmt.Sprintf(tutorial, "by-gcloud"),
				PlanOnly: true, // an empty plan is what PlanOnly expects
			},
		},
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(tutorial, "by-terraform"),
			Check:  samePools(t, fromGcloud, byTerraform, "on-demand-pool", "dws-pool"),
		}},
	})
}

// TestAccTPUPoolPair_unqueuedFlexStart: plan B as flex-start VMs without queued provisioning, made by GKE's documented
// gcloud command, imports with an empty plan; the pair made by Terraform carries the same pools.
func TestAccTPUPoolPair_unqueuedFlexStart(t *testing.T) {
	t.Parallel() // GKE only, on clusters of its own
	byGcloud := createTestCluster(t, "unqueued-gcloud")
	byTerraform := createTestCluster(t, "unqueued-terraform")
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	g.Run(testutil.TutorialPools("unqueued-gcloud", "on-demand-pool", "unused")[0]...)
	g.Run(testutil.UnqueuedFlexStartPool("unqueued-gcloud", "flex-start-pool")...)
	fromGcloud := testPools(t, byGcloud)
	config := `
resource "dwsfallback_tpu_pool_pair" "test" {
  cluster      = %q
  machine_type = "ct6e-standard-4t"
  tpu_topology = "4x4"
  max_nodes    = 4
  on_demand    = { name = "on-demand-pool" }
  flex_start   = { name = "flex-start-pool", provisioning = "flex-start-unqueued" }
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:             fmt.Sprintf(config, "unqueued-gcloud"),
				ResourceName:       pairAddr,
				ImportState:        true,
				ImportStateId:      byGcloud.String() + "/nodePools/on-demand-pool,flex-start-pool",
				ImportStatePersist: true,
			},
			{
				Config:   fmt.Sprintf(config, "unqueued-gcloud"),
				PlanOnly: true,
			},
		},
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(config, "unqueued-terraform"),
			Check: resource.ComposeTestCheckFunc(
				samePools(t, fromGcloud, byTerraform, "on-demand-pool", "flex-start-pool"),
				resource.TestCheckResourceAttr(pairAddr, "flex_start.flex_start_enabled", "true"),
				resource.TestCheckResourceAttr(pairAddr, "flex_start.queued_provisioning", "false"),
			),
		}},
	})
}

// samePools checks that the named pools of cluster b equal those of want (read from another cluster before its
// import test destroyed them) but for what names them: self link, etag, instance groups.
func samePools(t *testing.T, want map[string]*containerpb.NodePool, b clusterscope.Ref, names ...string) func(*terraform.State) error {
	return func(*terraform.State) error {
		got := testPools(t, b)
		for _, name := range names {
			if diff := cmp.Diff(want[name], got[name], protocmp.Transform(),
				protocmp.IgnoreFields(&containerpb.NodePool{}, "self_link", "etag", "instance_group_urls")); diff != "" {
				return fmt.Errorf("pool %s made by gcloud and by the provider on %s differ (-gcloud +provider):\n%s", name, b.Name, diff)
			}
		}
		return nil
	}
}

// tpu7xZone is the one zone on record that offers TPU7x.
const tpu7xZone = "us-central1-c"

// TestAccTPU7x: a multi-host TPU7x pair made by gcloud (placed by a workload policy) imports with an empty plan; one
// made by Terraform carries the same pools, and jobs land on it: job 1 on demand, job 2 on DWS, two nodes each.
func TestAccTPU7x(t *testing.T) {
	stackTest(t, 1)
	// TPU7x is in one zone on record, us-central1-c: the clusters are there, the provider's default location.
	byTerraform := createRayClusterIn(t, tpu7xZone, "acc-tpu7x")
	byGcloud := createTestClusterIn(t, tpu7xZone, "tpu7x-gcloud")
	cp := on(t, byTerraform)
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	for _, cmd := range testutil.TPU7xPools(byGcloud.Name, tpu7xZone, "on-demand-pool", "dws-pool", "2x2x2", "tpu7x-2x2x2", 2) {
		g.Run(cmd...)
	}
	fromGcloud := testPools(t, byGcloud)
	pair := func(cluster string) string {
		return fmt.Sprintf("provider \"dwsfallback\" {\n  location = %q\n}\n", tpu7xZone) + strings.Replace(strings.Replace(pairConfig(cluster, "on-demand-pool", "dws-pool", 2),
			`"ct6e-standard-4t"`, `"tpu7x-standard-4t"`, 1), `tpu_topology = "4x4"`, `tpu_topology = "2x2x2"`+"\n  placement_policy = \"tpu7x-2x2x2\"", 1)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: pair(byGcloud.Name), ResourceName: pairAddr, ImportState: true,
				ImportStateId: byGcloud.String() + "/nodePools/on-demand-pool,dws-pool", ImportStatePersist: true},
			{Config: pair(byGcloud.Name), PlanOnly: true},
		},
	})
	// Quota for one 2x2x2 slice (8 chips) on demand: job 2 falls back to DWS.
	cfg := pair(byTerraform.Name) + queueConfig(byTerraform.Name, "t7", 8) +
		jobsConfig(byTerraform.Name, "t7", []int{1}, `wait_for = "running"`) + strings.Replace(jobsConfig(byTerraform.Name, "t7", []int{2}, `wait_for = "running"`),
		"depends_on = [dwsfallback_kueue_queue.test]", "depends_on = [dwsfallback_kueue_queue.test, dwsfallback_rayjob.job1]", 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("tpu_accelerator"), knownvalue.StringExact("tpu7x")),
				statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("nodes_per_slice"), knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue("dwsfallback_rayjob.job1", tfjsonpath.New("num_of_hosts"), knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue("dwsfallback_rayjob.job2", tfjsonpath.New("admitted_flavor"), knownvalue.StringExact("t7-dws")),
			},
			Check: func(s *terraform.State) error {
				if err := samePools(t, fromGcloud, byTerraform, "on-demand-pool", "dws-pool")(s); err != nil {
					return err
				}
				for job, pool := range map[string]string{"t7-rayjob-1": "on-demand-pool", "t7-rayjob-2": "dws-pool"} {
					nodes, err := placedOn(cp, job, "worker", pool, 2)
					if err != nil {
						return err
					}
					for _, n := range nodes {
						if n.Labels[wellknown.TPUAcceleratorLabel] != "tpu7x" || n.Labels[wellknown.TPUTopologyLabel] != "2x2x2" {
							return fmt.Errorf("node %s labels %v, want tpu7x 2x2x2", n.Name, n.Labels)
						}
					}
				}
				return nil
			},
		}},
	})
}

// TestAccTPUPoolPair_twoSlicesInAPool: pools an earlier release made with two slices each (max_nodes 8 on a 4-node
// slice, which GKE refuses) plan an error that names the fix, and the fix updates them in place: each keeps its nodes'
// pool, its maximum becomes one slice, and a second pool of each plan joins it. Nothing is deleted.
func TestAccTPUPoolPair_twoSlicesInAPool(t *testing.T) {
	t.Parallel() // GKE only, on a cluster of its own
	ref := createTestCluster(t, "acc-two-in-one")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkPairDestroyed(ref, "od", "od-2", "dws", "dws-2"),
		Steps: []resource.TestStep{
			{Config: pairConfig(ref.Name, "od", "dws", 4)},
			{
				// As 0.1.x made them: a maximum of two slices on each pool, beside Terraform.
				PreConfig: func() {
					for _, pool := range []string{"od", "dws"} {
						if err := emu.Edit(ref.String()+"/nodePools/"+pool, "autoscaling.maxNodeCount", []byte("8")); err != nil {
							t.Fatal(err)
						}
					}
				},
				Config:      pairConfig(ref.Name, "od", "dws", 8),
				PlanOnly:    true,
				ExpectError: messageRE("For 2 slices at once, also set slices = 2"),
			},
			{
				Config: withSlices(pairConfig(ref.Name, "od", "dws", 4), 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(pairAddr, plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					if n := emu.For(ref.Name).Calls()["DeleteNodePool"]; n != 0 {
						return fmt.Errorf("%d node pools deleted, want none", n)
					}
					pools := testPools(t, ref)
					for _, name := range []string{"od", "od-2", "dws", "dws-2"} {
						if np := pools[name]; np.GetAutoscaling().GetMaxNodeCount() != 4 {
							return fmt.Errorf("pool %s: max nodes %d, want one slice, 4 (pools %v)", name, np.GetAutoscaling().GetMaxNodeCount(), poolNames(pools))
						}
					}
					return nil
				},
			},
			{Config: withSlices(pairConfig(ref.Name, "od", "dws", 4), 2), PlanOnly: true},
		},
	})
}
