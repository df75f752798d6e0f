package gkeemu_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// TestGcloudReservations makes, reads and deletes a TPU reservation with gcloud's own commands, as GKE's docs on
// consuming reserved TPUs write them.
func TestGcloudReservations(t *testing.T) {
	emu := gkeemu.New(gkeemu.Options{Tokens: []string{"gcloud-token"}})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	g := testutil.NewGcloud(t, srv.URL, "p", "gcloud-token")
	g.Run("compute", "reservations", "create", "tpu-res", "--zone=us-east5-b", "--machine-type=ct6e-standard-4t",
		"--vm-count=8", "--require-specific-reservation")
	got := emu.Reservations()
	if len(got) != 1 || got[0].Name != "tpu-res" || got[0].Zone != "us-east5-b" || got[0].MachineType != "ct6e-standard-4t" ||
		got[0].Count != 8 || !got[0].SpecificOnly || got[0].Project != "p" {
		t.Fatalf("reservations after gcloud's create = %+v", got)
	}
	if out, err := g.Try("compute", "reservations", "create", "tpu-res", "--zone=us-east5-b", "--machine-type=ct6e-standard-4t",
		"--vm-count=4"); err == nil || !strings.Contains(out, "already exists") {
		t.Errorf("a second create of tpu-res: %v\n%s", err, out)
	}
	desc := g.Run("compute", "reservations", "describe", "tpu-res", "--zone=us-east5-b",
		"--format=value(specificReservation.count,specificReservation.instanceProperties.machineType,specificReservationRequired)")
	if f := strings.Fields(desc); strings.Join(f, " ") != "8 ct6e-standard-4t True" {
		t.Errorf("describe = %q", desc)
	}
	if out, err := g.Try("compute", "reservations", "describe", "nope", "--zone=us-east5-b"); err == nil || !strings.Contains(out, "was not found") {
		t.Errorf("describe of a missing reservation: %v\n%s", err, out)
	}
	g.Run("compute", "reservations", "delete", "tpu-res", "--zone=us-east5-b")
	if got := emu.Reservations(); len(got) != 0 {
		t.Errorf("reservations after delete = %+v", got)
	}
}
