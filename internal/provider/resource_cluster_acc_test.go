package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

const clusterAddr = "dwsfallback_cluster.test"

func clusterConfig(name string, rayOperator bool, extra string) string {
	return fmt.Sprintf(`
resource "dwsfallback_cluster" "test" {
  name                = %[1]q
  ray_operator        = %[2]t
  deletion_protection = false
  %[3]s
}
`, name, rayOperator, extra)
}

func clusterExists(name string) bool {
	_, err := gke.FindCluster(context.Background(), gkeAPIForCheck(), clusterscope.Ref{Project: testProject, Location: testLocation, Name: name}.String())
	return err == nil
}

func TestAccCluster_basic(t *testing.T) {
	t.Parallel() // GKE only, on clusters of its own
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy: func(*terraform.State) error {
			if clusterExists("acc-cl") {
				return fmt.Errorf("cluster acc-cl still exists after destroy")
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: clusterConfig("acc-cl", true, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("id"), knownvalue.StringExact(clusterscope.Ref{Project: testProject, Location: testLocation, Name: "acc-cl"}.String())),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("status"), knownvalue.StringExact("RUNNING")),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("kubernetes_version"), knownvalue.StringExact("1.34")),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("resolved_version"), knownvalue.StringRegexp(regexp.MustCompile(`^1\.34\.`))),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("image_streaming"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("endpoint"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("ca_certificate"), knownvalue.NotNull()),
				},
			},
			{ResourceName: clusterAddr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts", "deletion_protection"}},
			{
				// The add-on and the labels change in place.
				Config: clusterConfig("acc-cl", false, `labels = { team = "ml" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("ray_operator"), knownvalue.Bool(false)),
				},
			},
			{
				// Someone turns the add-on on by hand: drift, repaired by apply.
				PreConfig: func() {
					c := gkeAPI(t)
					name := clusterscope.Ref{Project: testProject, Location: testLocation, Name: "acc-cl"}.String()
					if err := c.Mutate(context.Background(), name, func(ctx context.Context) (*containerpb.Operation, error) {
						return c.API().SetAddonsConfig(ctx, &containerpb.SetAddonsConfigRequest{Name: name,
							AddonsConfig: &containerpb.AddonsConfig{RayOperatorConfig: &containerpb.RayOperatorConfig{Enabled: true}}})
					}, nil); err != nil {
						t.Fatal(err)
					}
				},
				Config: clusterConfig("acc-cl", false, `labels = { team = "ml" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
				}},
			},
			{
				// Deleted by hand: planned again.
				PreConfig: func() {
					c := gkeAPI(t)
					name := clusterscope.Ref{Project: testProject, Location: testLocation, Name: "acc-cl"}.String()
					if err := c.Mutate(context.Background(), name, func(ctx context.Context) (*containerpb.Operation, error) {
						return c.API().DeleteCluster(ctx, &containerpb.DeleteClusterRequest{Name: name})
					}, nil); err != nil {
						t.Fatal(err)
					}
				},
				Config: clusterConfig("acc-cl", false, `labels = { team = "ml" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionCreate),
				}},
			},
		},
	})
}

func TestAccCluster_deletionProtection(t *testing.T) {
	t.Parallel() // GKE only, on clusters of its own
	cfg := func(protect bool) string {
		return fmt.Sprintf(`
resource "dwsfallback_cluster" "test" {
  name                = "acc-protected"
  deletion_protection = %t
}
`, protect)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: cfg(true)},
			{Config: cfg(true), Destroy: true, ExpectError: messageRE("deletion_protection is true: set it to false and apply, then destroy")},
			{Config: cfg(false)},
		},
	})
}

// TestAccCluster_gcloudEquivalence: the tutorial's `gcloud container clusters create`, imported, plans no change.
func TestAccCluster_gcloudEquivalence(t *testing.T) {
	t.Parallel() // GKE only, on clusters of its own
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	g.Run(testutil.TutorialCluster("tpu-cluster-gcloud", testProject)...)
	cfg := `
resource "dwsfallback_cluster" "test" {
  name = "tpu-cluster-gcloud"
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: cfg, ResourceName: clusterAddr, ImportState: true, ImportStateId: clusterscope.Ref{Project: testProject, Location: testLocation, Name: "tpu-cluster-gcloud"}.String(), ImportStatePersist: true},
			{Config: cfg, PlanOnly: true},
			// Lift the protection so the test can clean up.
			{Config: strings.Replace(cfg, `"tpu-cluster-gcloud"`, `"tpu-cluster-gcloud"
  deletion_protection = false`, 1)},
		},
	})
}

// TestAccCluster_driftOnDefaults: each setting a platform module leaves to its default, changed by hand with gcloud,
// plans the default back as an update, and the apply after it leaves an empty plan.
func TestAccCluster_driftOnDefaults(t *testing.T) {
	t.Parallel() // GKE only, on clusters of its own
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
