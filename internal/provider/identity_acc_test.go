package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// TestAccTPUPoolPair_identityAndQuery is what Terraform 1.12 and later do with identities and 1.14 with list
// resources, through the CLI (make test-tf116 runs it under 1.16): the identity the apply writes to state, import
// blocks by id and by identity, each reading back the state the apply wrote, then `terraform query` of the cluster's
// pairs, which finds the pair under that identity and display name, whole with include_resource.
func TestAccTPUPoolPair_identityAndQuery(t *testing.T) {
	t.Parallel() // GKE only, on a cluster of its own
	ref := createTestCluster(t, "acc-identity")
	config := pairConfig("acc-identity", "od", "dws", 4)
	identity := map[string]knownvalue.Check{
		"project": knownvalue.StringExact(ref.Project), "location": knownvalue.StringExact(ref.Location),
		"cluster": knownvalue.StringExact(ref.Name), "on_demand_pool": knownvalue.StringExact("od"), "flex_start_pool": knownvalue.StringExact("dws"),
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: config, ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectIdentity(pairAddr, identity)}},
			{Config: config, ResourceName: pairAddr, ImportState: true, ImportStateKind: resource.ImportBlockWithID},
			{Config: config, ResourceName: pairAddr, ImportState: true, ImportStateKind: resource.ImportBlockWithResourceIdentity},
			{
				Query: true,
				Config: `
provider "dwsfallback" {}
list "dwsfallback_tpu_pool_pair" "all" {
  provider         = dwsfallback
  include_resource = true
  config {
    cluster = "acc-identity"
  }
}
`,
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("dwsfallback_tpu_pool_pair.all", 1),
					querycheck.ExpectIdentity("dwsfallback_tpu_pool_pair.all", identity),
					querycheck.ExpectResourceDisplayName("dwsfallback_tpu_pool_pair.all", queryfilter.ByResourceIdentity(identity),
						knownvalue.StringExact("TPU pools od and dws (ct6e-standard-4t 4x4)")),
					querycheck.ExpectResourceKnownValues("dwsfallback_tpu_pool_pair.all", queryfilter.ByResourceIdentity(identity), []querycheck.KnownValueCheck{
						{Path: tfjsonpath.New("max_nodes"), KnownValue: knownvalue.Int64Exact(4)},
						{Path: tfjsonpath.New("flex_start").AtMapKey("name"), KnownValue: knownvalue.StringExact("dws")},
					}),
				},
			},
		},
	})
}
