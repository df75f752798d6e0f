package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

const preloaded = `secondary_boot_disks = [{ disk_image = "global/images/ray-tpu-preloaded", mode = "CONTAINER_IMAGE_CACHE" }]`

// TestAccTPUPoolPair_secondaryBootDisks: a pair gcloud made with a disk of preloaded images (--secondary-boot-disk)
// imports with an empty plan, and Terraform makes the same pools; another disk replaces the pair, as GKE attaches
// them only to a new pool; an image that does not exist is refused by GKE, a path that is none by the plan.
func TestAccTPUPoolPair_secondaryBootDisks(t *testing.T) {
	t.Parallel() // GKE only, on clusters of its own
	if err := emu.AddImage(testProject, "ray-tpu-preloaded"); err != nil {
		t.Fatal(err)
	}
	byGcloud := createTestCluster(t, "sbd-gcloud")
	byTerraform := createTestCluster(t, "sbd-terraform")
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	for _, cmd := range testutil.TutorialPools("sbd-gcloud", "on-demand-pool", "dws-pool") {
		g.Run(append(cmd, "--secondary-boot-disk=disk-image=global/images/ray-tpu-preloaded,mode=CONTAINER_IMAGE_CACHE")...)
	}
	fromGcloud := testPools(t, byGcloud)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			importTutorialPair(nodeSettingsConfig("sbd-gcloud", preloaded), byGcloud),
			{Config: nodeSettingsConfig("sbd-gcloud", preloaded), PlanOnly: true},
		},
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: nodeSettingsConfig("sbd-terraform", preloaded),
				Check:  samePools(t, fromGcloud, byTerraform, "on-demand-pool", "dws-pool"),
			},
			// Read back as written: no change.
			{Config: nodeSettingsConfig("sbd-terraform", preloaded), PlanOnly: true},
			{
				Config: nodeSettingsConfig("sbd-terraform", `secondary_boot_disks = [{ disk_image = "global/images/ray-tpu-preloaded" }]`),
				Check: resource.ComposeTestCheckFunc(deletedPools(byTerraform, 2),
					checkPool(t, byTerraform, "dws-pool", "config.secondaryBootDisks", `[{"diskImage":"global/images/ray-tpu-preloaded"}]`)),
			},
			{
				Config:      nodeSettingsConfig("sbd-terraform", `secondary_boot_disks = [{ disk_image = "global/images/missing" }]`),
				ExpectError: messageRE("projects/" + testProject + "/global/images/missing' was not found"),
			},
		},
	})
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config:      nodeSettingsConfig("sbd-terraform", `secondary_boot_disks = [{ disk_image = "ray-tpu-preloaded" }]`),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`must be global/images/NAME`),
		}},
	})
}

// TestAccTPUPoolPair_importEveryFlag: a pair gcloud made with every setting the pair has a flag for, at once (plan A
// on a specific reservation with its surge settings, plan B's run limit and auto-repair off, the nodes' identity,
// labels, taints, disk, gVNIC, zones and a disk of preloaded images) imports with an empty plan.
func TestAccTPUPoolPair_importEveryFlag(t *testing.T) {
	t.Parallel() // GKE only, on a cluster of its own
	addReservation(t, "acc-res-every", 8)
	if err := emu.AddImage(testProject, "ray-tpu-preloaded"); err != nil {
		t.Fatal(err)
	}
	ref := createTestCluster(t, "every-flag")
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	both := []string{"--service-account=" + nodesAccount, "--labels=team=ml,cost-center=42", "--tags=tpu,ml",
		"--node-labels=team=ml", "--node-taints=dedicated=ml:NoSchedule", "--disk-type=hyperdisk-balanced", "--disk-size=200",
		"--enable-gvnic", "--node-locations=us-east5-b",
		"--secondary-boot-disk=disk-image=global/images/ray-tpu-preloaded,mode=CONTAINER_IMAGE_CACHE"}
	pools := testutil.ReservationPools("every-flag", "on-demand-pool", "dws-pool", "acc-res-every")
	g.Run(append(append(pools[0], both...), "--max-surge-upgrade=2", "--max-unavailable-upgrade=1")...)
	g.Run(append(append(pools[1], both...), "--no-enable-autorepair")...)
	cfg := strings.NewReplacer(
		`reservation = "acc-res-every" }`, `reservation = "acc-res-every", max_surge = 2, max_unavailable = 1 }`,
		`max_run_duration = "86400s" }`, `max_run_duration = "86400s", auto_repair = false }`,
	).Replace(reservationPairConfig("every-flag", "acc-res-every", "86400s"))
	cfg = cfg[:strings.LastIndex(cfg, "}")] + teamSettings + preloaded + "\n" + `node_locations = ["us-east5-b"]` + "\n}\n"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			importTutorialPair(cfg, ref),
			{Config: cfg, PlanOnly: true},
		},
	})
}
