package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

const nodesAccount = "tpu-nodes@dwsfallback-local.iam.gserviceaccount.com"

// nodeSettingsConfig is the tutorial's pair with settings (HCL attributes) added.
func nodeSettingsConfig(cluster, settings string) string {
	c := pairConfig(cluster, "on-demand-pool", "dws-pool", 4)
	return c[:strings.LastIndex(c, "}")] + settings + "\n}\n"
}

// The gcloud commands' settings, as attributes. Plan B's scopes differ from plan A's, which the pair cannot say: the
// import shows that as drift, and the pair Terraform makes gives both pools the service account's default scopes.
const teamSettings = `
  service_account = "` + nodesAccount + `"
  resource_labels = { team = "ml", cost-center = "42" }
  network_tags    = ["tpu", "ml"]
  labels          = { team = "ml" }
  taints          = [{ key = "dedicated", value = "ml", effect = "NO_SCHEDULE" }]
  disk_type       = "hyperdisk-balanced"
  disk_size_gb    = 200
  gvnic           = true
`

// TestAccTPUPoolPair_nodeSettings: a pair whose pools gcloud made with a team's node settings imports with an empty
// plan; Terraform makes the same pools; labels, tags, taints, the boot disk and gVNIC change in place and go when
// removed from the configuration; new scopes replace the pools.
func TestAccTPUPoolPair_nodeSettings(t *testing.T) {
	t.Parallel() // GKE only, on clusters of its own
	byGcloud := createTestCluster(t, "nodes-gcloud")
	byTerraform := createTestCluster(t, "nodes-terraform")
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	for _, cmd := range testutil.NodeSettingsPools("nodes-gcloud", "on-demand-pool", "dws-pool", nodesAccount) {
		g.Run(cmd...)
	}
	fromGcloud := testPools(t, byGcloud)
	gcloudScopes := teamSettings + "\n  oauth_scopes = [\"https://www.googleapis.com/auth/cloud-platform\"]\n"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			importTutorialPair(nodeSettingsConfig("nodes-gcloud", teamSettings), byGcloud),
			// Plan A has the service account's default scopes, plan B cloud-platform alone: read from the pool that
			// differs from the configuration, and planned as a replacement.
			{Config: nodeSettingsConfig("nodes-gcloud", teamSettings), PlanOnly: true, ExpectNonEmptyPlan: true},
		},
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: nodeSettingsConfig("nodes-terraform", teamSettings),
				Check:  samePools(t, fromGcloud, byTerraform, "on-demand-pool"),
			},
			{
				Config: nodeSettingsConfig("nodes-terraform", `
  service_account = "`+nodesAccount+`"
  resource_labels = { team = "research" }
  network_tags    = ["tpu"]
  labels          = { team = "research", tier = "gold" }
  taints          = [{ key = "dedicated", value = "research", effect = "NO_EXECUTE" }]
  disk_size_gb    = 300
`),
				Check: resource.ComposeTestCheckFunc(deletedPools(byTerraform, 0),
					checkPool(t, byTerraform, "on-demand-pool", "config.diskSizeGb", "300"),
					checkPool(t, byTerraform, "dws-pool", "config.gvnic.enabled", ""),
					checkPool(t, byTerraform, "dws-pool", "config.resourceLabels", `{"goog-gke-node-pool-provisioning-model":"flex-start","goog-gke-tpu-node-pool-type":"multi-host","team":"research"}`),
					checkPool(t, byTerraform, "on-demand-pool", "config.tags", `["tpu"]`),
					checkPool(t, byTerraform, "on-demand-pool", "config.labels", `{"team":"research","tier":"gold"}`),
					checkPool(t, byTerraform, "dws-pool", "config.taints", `[{"effect":"NO_EXECUTE","key":"dedicated","value":"research"}]`)),
			},
			{
				Config: nodeSettingsConfig("nodes-terraform", `service_account = "`+nodesAccount+`"`),
				Check: resource.ComposeTestCheckFunc(deletedPools(byTerraform, 0),
					checkPool(t, byTerraform, "on-demand-pool", "config.resourceLabels", `{"goog-gke-node-pool-provisioning-model":"on-demand","goog-gke-tpu-node-pool-type":"multi-host"}`),
					checkPool(t, byTerraform, "dws-pool", "config.diskSizeGb", "100"),
					checkPool(t, byTerraform, "dws-pool", "config.tags", ""),
					checkPool(t, byTerraform, "on-demand-pool", "config.labels", ""),
					checkPool(t, byTerraform, "dws-pool", "config.taints", "")),
			},
			// The service account's default scopes spelled out, then taken out again: no pool changes.
			{
				Config: nodeSettingsConfig("nodes-terraform", `service_account = "`+nodesAccount+`"
  oauth_scopes = ["https://www.googleapis.com/auth/userinfo.email", "https://www.googleapis.com/auth/cloud-platform"]`),
				Check: deletedPools(byTerraform, 0),
			},
			// Empty, as a module's variable defaults write them: the same as none, and kept as written.
			{
				Config: nodeSettingsConfig("nodes-terraform", `service_account = "`+nodesAccount+`"
  labels = {}
  network_tags = []
  taints = []
  resource_labels = {}`),
				Check: resource.ComposeTestCheckFunc(deletedPools(byTerraform, 0), resource.TestCheckResourceAttr(pairAddr, "labels.%", "0")),
			},
			{
				Config: nodeSettingsConfig("nodes-terraform", gcloudScopes),
				Check:  resource.ComposeTestCheckFunc(deletedPools(byTerraform, 2), samePools(t, fromGcloud, byTerraform, "dws-pool")),
			},
		},
	})
}

// TestAccTPUPoolPair_nodeSettingsBadInput: node settings the configuration alone shows GKE would refuse fail the plan.
func TestAccTPUPoolPair_nodeSettingsBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, settings, want string }{
		{"a disk v6e cannot boot from", `disk_type = "pd-balanced"`, `(?s)ct6e-standard-4t\s+nodes\s+boot\s+only\s+from\s+hyperdisk-balanced`},
		{"a disk type GKE has not", `disk_type = "pd-extreme"`, `(?s)disk_type.*value must be one of`},
		{"a disk below 10 GB", `disk_size_gb = 5`, `(?s)disk_size_gb.*between 10 and 65536`},
		{"GKE's own resource label", `resource_labels = { goog-gke-node-pool-provisioning-model = "spot" }`, `(?s)GKE's\s+reserved\s+labels`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviders,
				Steps: []resource.TestStep{{
					Config:      nodeSettingsConfig("any-cluster", tc.settings),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}
