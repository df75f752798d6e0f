package provider

import (
	"fmt"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// TestAccTPUPoolPair_gcloudEquivalence: pools made by the tutorial's gcloud commands and pools made by this resource
// are equal field by field, and importing the gcloud-made ones plans no change.
func TestAccTPUPoolPair_gcloudEquivalence(t *testing.T) {
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
			{
				Config:             fmt.Sprintf(tutorial, "by-gcloud"),
				ResourceName:       pairAddr,
				ImportState:        true,
				ImportStateId:      byGcloud.String() + "/nodePools/on-demand-pool,dws-pool",
				ImportStatePersist: true,
			},
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

// samePools checks that the named pools of cluster b equal those of want (read from another cluster before its
// import test destroyed them) but for what names them: self link, etag, instance groups.
func samePools(t *testing.T, want map[string]*containerpb.NodePool, b clusterRef, names ...string) func(*terraform.State) error {
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
