package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// The drift audit of issue 21 for the resources beside the RayJob and the pool pairs: each setting a platform module
// leaves to its default, changed by hand (gcloud for the cluster, kubectl for the queue's Kueue objects), plans the
// default back as an update, and the apply after it leaves an empty plan. A field set by hand that the configuration
// leaves out (a cohort, a flavor's extra node label, a provisioning parameter) belongs to kubectl's field manager,
// which server-side apply leaves alone: the apply removes it with a merge patch, or the plan would never empty.

// driftStep is a step whose PreConfig changes something by hand and whose plan must update addr with want at attr.
func driftStep(config, addr, attr string, want knownvalue.Check, change func()) resource.TestStep {
	return resource.TestStep{
		PreConfig: change,
		Config:    config,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
			plancheck.ExpectKnownValue(addr, tfjsonpath.New(attr), want),
		}},
	}
}

func TestAccCluster_driftOnDefaults(t *testing.T) {
	cfg := `
resource "dwsfallback_cluster" "test" {
  name                = "acc-cldrift"
  deletion_protection = false
}
`
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	update := func(args ...string) func() {
		return func() {
			g.Run(append([]string{"container", "clusters", "update", "acc-cldrift", "--location=" + testLocation}, args...)...)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: cfg},
			driftStep(cfg, clusterAddr, "release_channel", knownvalue.StringExact("REGULAR"), update("--release-channel=rapid")),
			driftStep(cfg, clusterAddr, "image_streaming", knownvalue.Bool(true), update("--no-enable-image-streaming")),
			driftStep(cfg, clusterAddr, "ray_operator", knownvalue.Bool(true), update("--update-addons=RayOperator=DISABLED")),
			driftStep(cfg, clusterAddr, "labels", knownvalue.Null(), update("--update-labels=team=ml")),
			{Config: cfg, PlanOnly: true},
		},
	})
}

func TestAccKueueQueue_driftOnDefaults(t *testing.T) {
	requireStack(t)
	createTestCluster(t, "acc-qdrift")
	cfg := queueConfig("acc-qdrift", "qdrift", 16)
	patch := func(kind, name, body string) func() {
		return func() { kubectl(t, "", "patch", kind, name, "--type=merge", "-p", body) }
	}
	cq := "qdrift-cluster-queue"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkQueueDestroyed(t, "qdrift"),
		Steps: []resource.TestStep{
			{Config: cfg},
			driftStep(cfg, queueAddr, "namespace_selector", knownvalue.MapExact(map[string]knownvalue.Check{}),
				patch("clusterqueue", cq, `{"spec":{"namespaceSelector":{"matchLabels":{"team":"ml"}}}}`)),
			driftStep(cfg, queueAddr, "queueing_strategy", knownvalue.StringExact("BestEffortFIFO"),
				patch("clusterqueue", cq, `{"spec":{"queueingStrategy":"StrictFIFO"}}`)),
			driftStep(cfg, queueAddr, "preemption", knownvalue.ObjectPartial(map[string]knownvalue.Check{
				"within_cluster_queue": knownvalue.StringExact("Never"),
			}), patch("clusterqueue", cq, `{"spec":{"preemption":{"withinClusterQueue":"LowerPriority"}}}`)),
			driftStep(cfg, queueAddr, "flavor_fungibility", knownvalue.ObjectExact(map[string]knownvalue.Check{
				"when_can_borrow": knownvalue.StringExact("MayStopSearch"), "when_can_preempt": knownvalue.StringExact("TryNextFlavor"),
			}), patch("clusterqueue", cq, `{"spec":{"flavorFungibility":{"whenCanBorrow":"TryNextFlavor"}}}`)),
			driftStep(cfg, queueAddr, "cohort", knownvalue.Null(), patch("clusterqueue", cq, `{"spec":{"cohortName":"someone-elses"}}`)),
			driftStep(cfg, queueAddr, "flavors", knownvalue.ListPartial(map[int]knownvalue.Check{
				2: knownvalue.ObjectPartial(map[string]knownvalue.Check{"provisioning": knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"retry": knownvalue.ObjectPartial(map[string]knownvalue.Check{"backoff_limit_count": knownvalue.Int64Exact(3)}),
				})}),
			}), patch("provisioningrequestconfig", "qdrift-dws-config", `{"spec":{"retryStrategy":{"backoffLimitCount":7}}}`)),
			driftStep(cfg, queueAddr, "flavors", knownvalue.ListPartial(map[int]knownvalue.Check{
				1: knownvalue.ObjectPartial(map[string]knownvalue.Check{"node_labels": knownvalue.MapExact(map[string]knownvalue.Check{
					"cloud.google.com/gke-nodepool": knownvalue.StringExact("on-demand-pool"),
				})}),
			}), patch("resourceflavor", "qdrift-on-demand", `{"spec":{"nodeLabels":{"cloud.google.com/gke-nodepool":"other-pool","team":"ml"}}}`)),
			driftStep(cfg, queueAddr, "flavors", knownvalue.ListPartial(map[int]knownvalue.Check{
				2: knownvalue.ObjectPartial(map[string]knownvalue.Check{"provisioning": knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"parameters": knownvalue.Null(),
				})}),
			}), patch("provisioningrequestconfig", "qdrift-dws-config", `{"spec":{"parameters":{"ValidUntilSeconds":"600"}}}`)),
			{Config: cfg, PlanOnly: true},
		},
	})
}
