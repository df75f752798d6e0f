package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// TestAccTPUPoolPair_nodeLocations: a pair gcloud made in another zone of the cluster's region (--node-locations)
// imports with an empty plan, and Terraform makes the same pools; new zones are set in place; with node_locations
// left out, a pool moved by hand plans back to the zones it was made in. (The 4x4 slice spans 4 nodes: one zone.)
func TestAccTPUPoolPair_nodeLocations(t *testing.T) {
	t.Parallel() // GKE only, on clusters of its own
	byGcloud := createTestCluster(t, "zones-gcloud")
	byTerraform := createTestCluster(t, "zones-terraform")
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	for _, cmd := range testutil.TutorialPools("zones-gcloud", "on-demand-pool", "dws-pool") {
		g.Run(append(cmd, "--node-locations=us-east5-a")...)
	}
	fromGcloud := testPools(t, byGcloud)
	inA := `node_locations = ["us-east5-a"]`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			importTutorialPair(nodeSettingsConfig("zones-gcloud", inA), byGcloud),
			{Config: nodeSettingsConfig("zones-gcloud", inA), PlanOnly: true},
			// Left out, the zones stay GKE's choice: the ones read.
			{Config: nodeSettingsConfig("zones-gcloud", ""), PlanOnly: true},
		},
	})
	moveByHand := func() {
		g.Run("container", "node-pools", "update", "dws-pool", "--cluster=zones-terraform", "--location=us-east5-b", "--node-locations=us-east5-a")
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: nodeSettingsConfig("zones-terraform", inA),
				Check:  samePools(t, fromGcloud, byTerraform, "on-demand-pool", "dws-pool"),
			},
			{
				Config: nodeSettingsConfig("zones-terraform", `node_locations = ["us-east5-b"]`),
				Check: resource.ComposeTestCheckFunc(deletedPools(byTerraform, 0),
					checkPool(t, byTerraform, "on-demand-pool", "locations", `["us-east5-b"]`),
					checkPool(t, byTerraform, "dws-pool", "locations", `["us-east5-b"]`)),
			},
			{Config: nodeSettingsConfig("zones-terraform", ""), PlanOnly: true},
		},
	})
	// A new pair left to GKE's choice is in the cluster's zone; moved by hand, it plans back.
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: nodeSettingsConfig("zones-terraform", ""),
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr(pairAddr, "node_locations.#", "1"),
					resource.TestCheckResourceAttr(pairAddr, "node_locations.0", "us-east5-b")),
			},
			{
				PreConfig:          moveByHand,
				Config:             nodeSettingsConfig("zones-terraform", ""),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: nodeSettingsConfig("zones-terraform", ""),
				// The two deleted are the last test case's destroy.
				Check: resource.ComposeTestCheckFunc(deletedPools(byTerraform, 2),
					checkPool(t, byTerraform, "dws-pool", "locations", `["us-east5-b"]`)),
			},
		},
	})
}

// TestAccTPUPoolPair_nodeLocationsBadInput: zones the configuration shows GKE would refuse fail the plan.
func TestAccTPUPoolPair_nodeLocationsBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, setting, want string }{
		{"not a zone", `node_locations = ["us-east5"]`, `(?s)node_locations.*must be a zone`},
		{"another region", `node_locations = ["us-central1-b"]`, `A zone outside the cluster's region`},
		{"a zone without v6e", `node_locations = ["us-east5-c"]`, `A zone without the machine type`},
		{"a multi-host slice in two zones", `node_locations = ["us-east5-a", "us-east5-b"]`, `A multi-host slice lives in one zone`},
		{"left out, in a cluster zone without v6e", `location = "us-east5-c"`, `The cluster's zone lacks the machine type`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviders,
				Steps: []resource.TestStep{{
					Config: nodeSettingsConfig("no-such-cluster", tc.setting), PlanOnly: true, ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}
