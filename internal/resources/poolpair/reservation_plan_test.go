package poolpair

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"golang.org/x/oauth2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

// gkeOnly hands out one GKE client, as the configured provider does.
type gkeOnly struct{ c *gke.Client }

func (g gkeOnly) GKE(context.Context) (*gke.Client, error) { return g.c, nil }
func (gkeOnly) Defaults() (string, string)                 { return "p", "us-east5-b" }
func (gkeOnly) Kube(context.Context, clusterscope.Ref) (*kube.Clients, error) {
	return nil, nil
}
func (gkeOnly) HasKubernetesBlock() bool { return false }

// TestPlanReservation reads reservations from the emulator's Compute API, as a plan does, and checks what it says
// of each.
func TestPlanReservation(t *testing.T) {
	emu := gkeemu.New(gkeemu.Options{Tokens: []string{"t"}})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	for _, r := range []gkeemu.Reservation{
		{Project: "p", Zone: "us-east5-b", Name: "two", MachineType: "ct6e-standard-4t", Count: 2},
		{Project: "p", Zone: "us-east5-b", Name: "six", MachineType: "ct6e-standard-4t", Count: 6},
		{Project: "p", Zone: "us-east5-b", Name: "eight", MachineType: "ct6e-standard-4t", Count: 8},
		{Project: "p", Zone: "us-east5-c", Name: "gpus", MachineType: "a3-highgpu-8g", Count: 8},
	} {
		if err := emu.AddReservation(r); err != nil {
			t.Fatal(err)
		}
	}
	client, err := gke.Connect(context.Background(), gke.Config{Endpoint: srv.URL, ComputeEndpoint: srv.URL + "/compute/v1/",
		TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "t"})})
	if err != nil {
		t.Fatal(err)
	}
	slice := reservationNeed{machineType: "ct6e-standard-4t", unit: 4, most: 8}
	for _, tc := range []struct {
		name   string
		target reservationTarget
		need   reservationNeed
		want   string // the first diagnostic's summary, "" for none
		errors bool
	}{
		{"room for both slices", reservationTarget{"p", "eight", []string{"us-east5-b"}}, slice, "", false},
		{"in the second of two zones", reservationTarget{"p", "gpus", []string{"us-east5-b", "us-east5-c"}},
			reservationNeed{machineType: "a3-highgpu-8g", unit: 1, most: 4}, "", false},
		{"room for one slice of two", reservationTarget{"p", "six", []string{"us-east5-b"}}, slice, "Reservation smaller than the pools", false},
		{"no room for a slice", reservationTarget{"p", "two", []string{"us-east5-b"}}, slice, "Reservation smaller than one slice", true},
		{"another machine type", reservationTarget{"p", "gpus", []string{"us-east5-c"}}, slice, "Reservation of another machine type", true},
		{"none of that name", reservationTarget{"p", "nope", []string{"us-east5-b"}}, slice, "Reservation not found", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var diags diag.Diagnostics
			planReservation(context.Background(), gkeOnly{client}, tc.target, tc.need, &diags)
			switch {
			case tc.want == "" && len(diags) > 0:
				t.Fatalf("want no diagnostics, got %v", diags)
			case tc.want != "" && (len(diags) != 1 || diags[0].Summary() != tc.want):
				t.Fatalf("want one %q, got %v", tc.want, diags)
			case diags.HasError() != tc.errors:
				t.Fatalf("an error: %v, want %v (%v)", diags.HasError(), tc.errors, diags)
			case tc.want != "" && !strings.Contains(diags[0].Detail(), tc.target.name):
				t.Errorf("the detail does not name the reservation: %s", diags[0].Detail())
			}
		})
	}
}

func TestTargetOf(t *testing.T) {
	ref := clusterscope.Ref{Project: "p", Location: "us-east5-b", Name: "c"}
	for _, tc := range []struct{ value, project, name string }{
		{"r", "p", "r"},
		{"projects/owner/reservations/r", "owner", "r"},
		{"r/reservationBlocks/b1/reservationSubBlocks/s", "p", "r"},
		{"projects/owner/reservations/r/reservationBlocks/b1", "owner", "r"},
	} {
		plan := &poolPairModel{}
		onDemandRole.set(plan, onDemandRole.encodePool(specificPool(tc.value)))
		got, ok := targetOf(plan, ref)
		if !ok || got.project != tc.project || got.name != tc.name || strings.Join(got.zones, ",") != "us-east5-b" {
			t.Errorf("targetOf(%q) = %+v, %v", tc.value, got, ok)
		}
	}
}

func specificPool(reservation string) poolModel {
	return poolModel{Name: types.StringValue("on-demand-pool"), ReservationAffinity: types.StringValue("specific"),
		Reservation: types.StringValue(reservation), NodeLabels: types.MapNull(types.StringType), BlueGreen: types.ObjectNull(blueGreenTypes)}
}
