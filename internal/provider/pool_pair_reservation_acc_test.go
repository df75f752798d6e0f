package provider

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// reservationPairConfig is the tutorial's pair, plan A on reservation (with affinity specific)
// and plan B's VMs run for at most runLimit ("" for GKE's 7 days).
func reservationPairConfig(cluster, reservation, runLimit string) string {
	flex := `{ name = "dws-pool" }`
	if runLimit != "" {
		flex = fmt.Sprintf(`{ name = "dws-pool", max_run_duration = %q }`, runLimit)
	}
	return fmt.Sprintf(`
resource "dwsfallback_tpu_pool_pair" "test" {
  cluster      = %q
  machine_type = "ct6e-standard-4t"
  tpu_topology = "4x4"
  max_nodes    = 4
  on_demand    = { name = "on-demand-pool", reservation_affinity = "specific", reservation = %q }
  flex_start   = %s
}
`, cluster, reservation, flex)
}

func addReservation(t *testing.T, name string, count int) {
	t.Helper()
	if err := emu.AddReservation(gkeemu.Reservation{Name: name, Zone: "us-east5-b", MachineType: "ct6e-standard-4t", Count: count}); err != nil {
		t.Fatal(err)
	}
}

// importTutorialPair imports the pair of the tutorial's pool names on ref's cluster under config, and keeps it.
func importTutorialPair(config string, ref clusterscope.Ref) resource.TestStep {
	return resource.TestStep{Config: config, ResourceName: pairAddr, ImportState: true,
		ImportStateId: ref.String() + "/nodePools/on-demand-pool,dws-pool", ImportStatePersist: true}
}

// deletedPools checks that the apply so far deleted n node pools of the cluster: an in-place change deletes none.
func deletedPools(ref clusterscope.Ref, n int) func(*terraform.State) error {
	return func(*terraform.State) error {
		if got := emu.For(ref.Name).Calls()["DeleteNodePool"]; got != n {
			return fmt.Errorf("%d node pools of %s deleted so far, want %d", got, ref.Name, n)
		}
		return nil
	}
}

// TestAccTPUPoolPair_reservation: a pair made by gcloud with plan A on a specific reservation and plan B's run limit
// imports with an empty plan, and the pair Terraform makes of the same settings has the same pools. A new run limit is
// set in place; another reservation replaces plan A only; removing the run limit replaces plan B only, as GKE cannot
// unset it.
func TestAccTPUPoolPair_reservation(t *testing.T) {
	t.Parallel() // GKE only, on clusters of its own
	addReservation(t, "acc-res-a", 8)
	addReservation(t, "acc-res-b", 8)
	byGcloud := createTestCluster(t, "res-gcloud")
	byTerraform := createTestCluster(t, "res-terraform")
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	for _, cmd := range testutil.ReservationPools("res-gcloud", "on-demand-pool", "dws-pool", "acc-res-a") {
		g.Run(cmd...)
	}
	fromGcloud := testPools(t, byGcloud)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			importTutorialPair(reservationPairConfig("res-gcloud", "acc-res-a", "86400s"), byGcloud),
			{Config: reservationPairConfig("res-gcloud", "acc-res-a", "86400s"), PlanOnly: true},
		},
	})
	addReservation(t, "acc-res-small", 2)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				// Read at plan time: a reservation of 2 VMs under a 4-VM slice is refused before anything is made.
				Config:      reservationPairConfig("res-terraform", "acc-res-small", ""),
				PlanOnly:    true,
				ExpectError: messageRE(`Reservation acc-res-small in us-east5-b holds 2 VMs; a pool of this pair takes 4 at once (one slice)`),
			},
			{
				Config: reservationPairConfig("res-terraform", "acc-res-a", "86400s"),
				Check: resource.ComposeTestCheckFunc(
					samePools(t, fromGcloud, byTerraform, "on-demand-pool", "dws-pool"),
					resource.TestCheckResourceAttr(pairAddr, "on_demand.reservation", "acc-res-a"),
					resource.TestCheckResourceAttr(pairAddr, "flex_start.max_run_duration", "86400s"),
				),
			},
			{
				Config: reservationPairConfig("res-terraform", "acc-res-a", "3600s"),
				Check: resource.ComposeTestCheckFunc(deletedPools(byTerraform, 0),
					checkPool(t, byTerraform, "dws-pool", "config.maxRunDuration", "3600s")),
			},
			{
				Config: reservationPairConfig("res-terraform", "acc-res-b", "3600s"),
				Check: resource.ComposeTestCheckFunc(deletedPools(byTerraform, 1),
					checkPool(t, byTerraform, "on-demand-pool", "config.reservationAffinity.values", `["acc-res-b"]`)),
			},
			{
				Config: reservationPairConfig("res-terraform", "acc-res-b", ""),
				Check: resource.ComposeTestCheckFunc(deletedPools(byTerraform, 2),
					checkPool(t, byTerraform, "dws-pool", "config.maxRunDuration", "")),
			},
		},
	})
}

// TestAccTPUPoolPair_anyThenFail: plan A on any matching reservation and nothing else (ANY_RESERVATION_THEN_FAIL,
// which gcloud 528 has no flag for) sends the API field alone, imports with an empty plan, and back to "none" replaces
// plan A only.
func TestAccTPUPoolPair_anyThenFail(t *testing.T) {
	t.Parallel() // GKE only, on a cluster of its own
	addReservation(t, "acc-res-any", 8)
	ref := createTestCluster(t, "res-any")
	thenFail := strings.Replace(reservationPairConfig("res-any", "acc-res-any", ""), `reservation_affinity = "specific", reservation = "acc-res-any"`, `reservation_affinity = "any-then-fail"`, 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: thenFail,
				Check: resource.ComposeTestCheckFunc(
					checkPool(t, ref, "on-demand-pool", "config.reservationAffinity", `{"consumeReservationType":"ANY_RESERVATION_THEN_FAIL"}`),
					resource.TestCheckResourceAttr(pairAddr, "on_demand.reservation_affinity", "any-then-fail")),
			},
			{Config: thenFail, ResourceName: pairAddr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts", "drift"}},
			{
				Config: strings.Replace(thenFail, `, reservation_affinity = "any-then-fail"`, "", 1),
				Check: resource.ComposeTestCheckFunc(deletedPools(ref, 1),
					checkPool(t, ref, "on-demand-pool", "config.reservationAffinity", `{"consumeReservationType":"NO_RESERVATION"}`)),
			},
		},
	})
}

// TestAccTPUPoolPair_reservationBadInput: what the configuration alone shows wrong is refused at plan time.
func TestAccTPUPoolPair_reservationBadInput(t *testing.T) {
	t.Parallel()
	base := reservationPairConfig("any-cluster", "r", "")
	for _, tc := range []struct{ name, from, to, want string }{
		{"specific without a reservation", `, reservation = "r"`, "", `(?s)A specific reservation needs its name`},
		{"a reservation without specific", `reservation_affinity = "specific", `, "", `(?s)reservation_affinity\s+is\s+"none"`},
		{"run limit past 7 days", `{ name = "dws-pool" }`, `{ name = "dws-pool", max_run_duration = "691200s" }`, `(?s)at most 7 days`},
		{"run limit in hours", `{ name = "dws-pool" }`, `{ name = "dws-pool", max_run_duration = "24h" }`, `(?s)whole seconds followed by "s"`},
		{"a reservation in another form", `reservation = "r"`, `reservation = "projects/p/zones/us-east5-b/reservations/r"`, `(?s)must be a reservation's name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviders,
				Steps: []resource.TestStep{{
					Config:      regexp.MustCompile(regexp.QuoteMeta(tc.from)).ReplaceAllLiteralString(base, tc.to),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}

// checkPool checks one field of a live pool, as GKE's JSON writes it ("" for a field the pool does not have).
func checkPool(t *testing.T, ref clusterscope.Ref, pool, field, want string) func(*terraform.State) error {
	return func(*terraform.State) error {
		np := testPools(t, ref)[pool]
		if np == nil {
			return fmt.Errorf("no pool %s in %s", pool, ref.Name)
		}
		raw, err := protojson.Marshal(np)
		if err != nil {
			return err
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		for _, k := range strings.Split(field, ".") {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		got := ""
		if s, ok := v.(string); ok {
			got = s
		} else if v != nil {
			b, _ := json.Marshal(v)
			got = string(b)
		}
		if got != want {
			return fmt.Errorf("pool %s .%s = %s, want %s", pool, field, got, want)
		}
		return nil
	}
}
