package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

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
			importTutorialPair(imported, ref),
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
				ExpectError: regexp.MustCompile(`Auto_upgrade cannot be false\s+when release_channel REGULAR is set`),
			},
			{
				Config: lifecycleConfig("life", `, max_surge = 3`, ``),
				Check:  resource.ComposeTestCheckFunc(deletedPools(ref, 0), checkPool(t, ref, "on-demand-pool", "management.autoUpgrade", "true")),
			},
			{Config: lifecycleConfig("life", `, max_surge = 3`, ``), PlanOnly: true},
		},
	})
}

// TestAccTPUPoolPair_adoptedAsIs: a pool left under the configured name is adopted; when GKE refuses the in-place
// change that would make it what the configuration says, the apply warns and succeeds (an error would taint the pair,
// and the next apply would delete the pool), the next plan shows what still differs, and the next apply sets it.
func TestAccTPUPoolPair_adoptedAsIs(t *testing.T) {
	t.Parallel() // GKE only, its faults its cluster's
	ref := createTestCluster(t, "adopt-as-is")
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	g.Run(testutil.TutorialPools(ref.Name, "on-demand-pool", "dws-pool")[0]...)
	faults := emu.For(ref.Name)
	t.Cleanup(faults.Clear)
	config := lifecycleConfig(ref.Name, `, auto_repair = false`, "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				PreConfig:          func() { faults.FailNext("SetNodePoolManagement", 1, 400, "refused for the test") },
				Config:             config,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: config,
				Check: resource.ComposeTestCheckFunc(deletedPools(ref, 0), func(*terraform.State) error {
					if np := testPools(t, ref)["on-demand-pool"]; np.GetManagement().GetAutoRepair() {
						return fmt.Errorf("the adopted pool still has auto-repair on after the second apply")
					}
					return nil
				}),
			},
		},
	})
}
