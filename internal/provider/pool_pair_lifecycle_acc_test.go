package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// lifecycleConfig is the tutorial's pair with plan A's and plan B's lifecycle settings (HCL attributes) added.
func lifecycleConfig(cluster, onDemand, flex string) string {
	c := pairConfig(cluster, "on-demand-pool", "dws-pool", 4)
	c = strings.Replace(c, `{ name = "on-demand-pool" }`, `{ name = "on-demand-pool"`+onDemand+` }`, 1)
	return strings.Replace(c, `{ name = "dws-pool" }`, `{ name = "dws-pool"`+flex+` }`, 1)
}

// TestAccTPUPoolPair_lifecycle: pools gcloud made with auto-repair off and surge settings import with an empty plan;
// the settings change in place; auto-upgrade off on a cluster in a release channel fails with GKE's words and leaves
// state the next apply finishes from.
func TestAccTPUPoolPair_lifecycle(t *testing.T) {
	t.Parallel() // GKE only, on a cluster of its own
	ref := createTestCluster(t, "life")
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	pools := testutil.TutorialPools("life", "on-demand-pool", "dws-pool")
	g.Run(append(pools[0], "--no-enable-autorepair", "--max-surge-upgrade=2", "--max-unavailable-upgrade=1")...)
	g.Run(append(pools[1], "--no-enable-autorepair")...)
	imported := lifecycleConfig("life", `, auto_repair = false, max_surge = 2, max_unavailable = 1`, `, auto_repair = false`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:             imported,
				ResourceName:       pairAddr,
				ImportState:        true,
				ImportStateId:      ref.String() + "/nodePools/on-demand-pool,dws-pool",
				ImportStatePersist: true,
			},
			{Config: imported, PlanOnly: true},
			{
				Config: lifecycleConfig("life", `, max_surge = 3`, ``),
				Check: resource.ComposeTestCheckFunc(deletedPools(ref, 0),
					checkPool(t, ref, "on-demand-pool", "management.autoRepair", "true"),
					checkPool(t, ref, "on-demand-pool", "upgradeSettings.maxSurge", "3"),
					checkPool(t, ref, "on-demand-pool", "upgradeSettings.maxUnavailable", ""),
					checkPool(t, ref, "dws-pool", "management.autoRepair", "true"),
					checkPool(t, ref, "dws-pool", "upgradeSettings.strategy", "SHORT_LIVED")),
			},
			// One number alone back to its default of 0: GKE's update gets it, though 0 is proto3's "unset".
			{
				Config: lifecycleConfig("life", `, max_surge = 3, max_unavailable = 2`, ``),
				Check:  checkPool(t, ref, "on-demand-pool", "upgradeSettings.maxUnavailable", "2"),
			},
			{
				Config: lifecycleConfig("life", `, max_surge = 3`, ``),
				Check:  resource.ComposeTestCheckFunc(deletedPools(ref, 0), checkPool(t, ref, "on-demand-pool", "upgradeSettings.maxUnavailable", "")),
			},
			{
				Config:      lifecycleConfig("life", `, max_surge = 3, auto_upgrade = false`, ``),
				ExpectError: regexp.MustCompile(`Auto_upgrade must be true\s+when release_channel REGULAR is set`),
			},
			{
				Config: lifecycleConfig("life", `, max_surge = 3`, ``),
				Check:  resource.ComposeTestCheckFunc(deletedPools(ref, 0), checkPool(t, ref, "on-demand-pool", "management.autoUpgrade", "true")),
			},
			{Config: lifecycleConfig("life", `, max_surge = 3`, ``), PlanOnly: true},
		},
	})
}
