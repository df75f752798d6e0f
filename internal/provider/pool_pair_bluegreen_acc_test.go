package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// TestAccGPUPoolPair_blueGreen: a GPU pair whose plan A gcloud made with blue-green upgrades imports with an empty plan;
// the rollout changes, a setting is taken out, and the strategy goes back to surge, all in place; a multi-host TPU slice
// is refused at plan time.
func TestAccGPUPoolPair_blueGreen(t *testing.T) {
	t.Parallel() // GKE only, on a cluster of its own
	ref := createTestCluster(t, "gpu-blue-green")
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	cmds := testutil.GPUPools(ref.Name, "od", "dws", "a3-highgpu-8g", "type=nvidia-h100-80gb,count=8,gpu-driver-version=latest", true)
	g.Run(append(cmds[0], "--enable-blue-green-upgrade", "--node-pool-soak-duration=600s",
		"--standard-rollout-policy=batch-node-count=1,batch-soak-duration=60s")...)
	g.Run(cmds[1]...)
	config := func(blueGreen string) string {
		return strings.Replace(gpuPairConfig(ref.Name, "flex-start"), `{ name = "od" }`, `{ name = "od"`+blueGreen+` }`, 1)
	}
	imported := config(`, blue_green = { node_pool_soak_duration = "600s", batch_node_count = 1, batch_soak_duration = "60s" }`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: imported, ResourceName: "dwsfallback_gpu_pool_pair.test", ImportState: true,
				ImportStateId: ref.String() + "/nodePools/od,dws", ImportStatePersist: true},
			{Config: imported, PlanOnly: true},
			{
				Config: config(`, blue_green = { batch_percentage = 0.5, node_pool_soak_duration = "600s" }`),
				Check: resource.ComposeTestCheckFunc(deletedPools(ref, 0),
					checkPool(t, ref, "od", "upgradeSettings.strategy", "BLUE_GREEN"),
					checkPool(t, ref, "od", "upgradeSettings.blueGreenSettings.standardRolloutPolicy.batchPercentage", "0.5"),
					checkPool(t, ref, "od", "upgradeSettings.blueGreenSettings.standardRolloutPolicy.batchSoakDuration", "")),
			},
			// A setting taken out, and nothing else changed: the update must still send it away.
			{
				Config: config(`, blue_green = { batch_percentage = 0.5 }`),
				Check: resource.ComposeTestCheckFunc(deletedPools(ref, 0),
					checkPool(t, ref, "od", "upgradeSettings.blueGreenSettings.nodePoolSoakDuration", "")),
			},
			{Config: config(`, blue_green = { batch_percentage = 0.5 }`), PlanOnly: true},
			{
				Config: config(""),
				Check: resource.ComposeTestCheckFunc(deletedPools(ref, 0),
					checkPool(t, ref, "od", "upgradeSettings.strategy", "SURGE")),
			},
			{Config: config(""), PlanOnly: true},
		},
	})
	// The tutorial's 4x4 slice is four nodes, placed compactly.
	tpu := strings.Replace(pairConfig(ref.Name, "on-demand-pool", "dws-pool", 4), `{ name = "on-demand-pool" }`, `{ name = "on-demand-pool", blue_green = {} }`, 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: tpu, PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)Blue-green upgrades of a multi-host TPU slice.*compact placement does not support`),
		}},
	})
}
