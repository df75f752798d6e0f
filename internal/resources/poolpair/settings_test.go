package poolpair

import (
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/testing/protocmp"
)

// gcloudReservationBodies are gcloud 528's CreateNodePool bodies for the tutorial's two commands with plan A on a
// specific reservation (--reservation-affinity=specific --reservation=tpu-reservation) and plan B's run limit
// (--max-run-duration=86400s), both at --max-nodes=8, captured from gcloud on loopback.
var gcloudReservationBodies = map[string]string{
	"on-demand-pool": `{"nodePool": {"autoscaling": {"enabled": true, "maxNodeCount": 8, "minNodeCount": 0}, "config": {"machineType": "ct6e-standard-4t", "oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write", "https://www.googleapis.com/auth/monitoring", "https://www.googleapis.com/auth/service.management.readonly", "https://www.googleapis.com/auth/servicecontrol", "https://www.googleapis.com/auth/trace.append"], "reservationAffinity": {"consumeReservationType": "SPECIFIC_RESERVATION", "key": "compute.googleapis.com/reservation-name", "values": ["tpu-reservation"]}}, "initialNodeCount": 0, "management": {"autoRepair": true, "autoUpgrade": true}, "name": "on-demand-pool", "placementPolicy": {"tpuTopology": "4x4"}, "upgradeSettings": {"maxSurge": 1}}}`,
	"dws-pool":       `{"nodePool": {"autoscaling": {"enabled": true, "maxNodeCount": 8, "minNodeCount": 0}, "config": {"flexStart": true, "machineType": "ct6e-standard-4t", "maxRunDuration": "86400s", "oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write", "https://www.googleapis.com/auth/monitoring", "https://www.googleapis.com/auth/service.management.readonly", "https://www.googleapis.com/auth/servicecontrol", "https://www.googleapis.com/auth/trace.append"]}, "initialNodeCount": 0, "management": {"autoRepair": true, "autoUpgrade": true}, "name": "dws-pool", "placementPolicy": {"tpuTopology": "4x4"}, "queuedProvisioning": {"enabled": true}, "upgradeSettings": {"maxSurge": 1}}}`,
}

func TestExpandReservationAndRunLimitMatchGcloud(t *testing.T) {
	t.Parallel()
	m := tutorialModel()
	m.MaxNodes = types.Int64Value(8)
	for _, tc := range []struct {
		role poolRole
		pool poolModel
	}{
		{onDemandRole, poolModel{Name: types.StringValue("on-demand-pool"), ReservationAffinity: types.StringValue("specific"), Reservation: types.StringValue("tpu-reservation")}},
		{flexStartRole, poolModel{Name: types.StringValue("dws-pool"), Provisioning: types.StringValue(provisioningFlexStart), MaxRunDuration: types.StringValue("86400s")}},
	} {
		want := &containerpb.CreateNodePoolRequest{}
		if err := protojson.Unmarshal([]byte(gcloudReservationBodies[tc.pool.Name.ValueString()]), want); err != nil {
			t.Fatal(err)
		}
		got := expandNodePool(tc.role, tc.pool, m)
		if diff := cmp.Diff(want.GetNodePool(), got, protocmp.Transform()); diff != "" {
			t.Errorf("%s: request differs from gcloud's (-gcloud +provider):\n%s", tc.role.attr, diff)
		}
		// What Read makes of the pool is what the configuration said.
		back, _ := tc.role.decodePool(flattenNodePool(tc.role, got, types.MapNull(types.StringType)))
		if !back.Reservation.Equal(tc.pool.Reservation) || !back.MaxRunDuration.Equal(tc.pool.MaxRunDuration) {
			t.Errorf("%s: read back reservation %s, run limit %s; want %s, %s", tc.role.attr, back.Reservation, back.MaxRunDuration, tc.pool.Reservation, tc.pool.MaxRunDuration)
		}
	}
}

func TestParseRunDuration(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"1s": time.Second, "86400s": 24 * time.Hour, "604800s": 7 * 24 * time.Hour,
		"604801s": 0, "0s": 0, "01s": 0, "4h": 0, "+5s": 0, "1.5s": 0, "": 0} {
		got, ok := parseRunDuration(types.StringValue(in))
		if got != want || ok != (want != 0) {
			t.Errorf("parseRunDuration(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	if got := formatRunDuration(90 * time.Minute); got != "5400s" {
		t.Errorf("formatRunDuration(90m) = %q, want 5400s", got)
	}
}

func TestValidatePoolSettings(t *testing.T) {
	t.Parallel()
	str := types.StringValue
	for _, tc := range []struct {
		name   string
		od, fx poolModel
		want   string
	}{
		{"tutorial", poolModel{}, poolModel{}, ""},
		{"specific with its reservation", poolModel{ReservationAffinity: str("specific"), Reservation: str("r")}, poolModel{}, ""},
		{"specific without one", poolModel{ReservationAffinity: str("specific")}, poolModel{}, "needs its name"},
		{"reservation, affinity left to its default", poolModel{Reservation: str("r")}, poolModel{}, `reservation_affinity is "none"`},
		{"reservation with any", poolModel{ReservationAffinity: str("any"), Reservation: str("r")}, poolModel{}, "needs reservation_affinity"},
		{"reservation not known yet", poolModel{ReservationAffinity: str("specific"), Reservation: types.StringUnknown()}, poolModel{}, ""},
		{"run limit of a day", poolModel{}, poolModel{MaxRunDuration: str("86400s")}, ""},
		{"run limit past 7 days", poolModel{}, poolModel{MaxRunDuration: str("691200s")}, "at most 7 days (604800s)"},
		{"no surge, one unavailable", poolModel{MaxSurge: types.Int64Value(0), MaxUnavailable: types.Int64Value(1)}, poolModel{}, ""},
		{"no surge, unavailable left to its 0", poolModel{MaxSurge: types.Int64Value(0), MaxUnavailable: types.Int64Null()}, poolModel{}, "both 0"},
		{"surge left to its 1, none unavailable", poolModel{MaxSurge: types.Int64Null(), MaxUnavailable: types.Int64Value(0)}, poolModel{}, ""},
		{"surge not known yet", poolModel{MaxSurge: types.Int64Unknown(), MaxUnavailable: types.Int64Value(0)}, poolModel{}, ""},
		{"no surge and none unavailable, blue-green", poolModel{MaxSurge: types.Int64Value(0), MaxUnavailable: types.Int64Value(0),
			BlueGreen: blueGreenObject(types.StringNull(), types.StringNull(), types.Int64Null(), types.Float64Null())}, poolModel{}, ""},
		{"blue-green, a share float32 keeps", poolModel{
			BlueGreen: blueGreenObject(types.StringNull(), types.StringNull(), types.Int64Null(), types.Float64Value(0.3333333))}, poolModel{}, ""},
		{"blue-green, a share float32 cannot keep", poolModel{
			BlueGreen: blueGreenObject(types.StringNull(), types.StringNull(), types.Int64Null(), types.Float64Value(1.0/3))}, poolModel{}, "reads back as 0.33333334"},
		{"blue-green, a batch of no nodes", poolModel{
			BlueGreen: blueGreenObject(types.StringNull(), types.StringNull(), types.Int64Null(), types.Float64Value(0))}, poolModel{}, "above 0"},
	} {
		var diags diag.Diagnostics
		validatePoolSettings(tc.od, true, tc.fx, true, &diags)
		got := ""
		for _, d := range diags {
			got += d.Summary() + ": " + d.Detail()
		}
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: diagnostics %q, want one containing %q", tc.name, got, tc.want)
		}
	}
}

func TestPoolReplaced(t *testing.T) {
	t.Parallel()
	str := types.StringValue
	od := poolModel{Name: str("od"), ReservationAffinity: str("specific"), Reservation: str("r1")}
	fx := poolModel{Name: str("dws"), Provisioning: str(provisioningFlexStart), MaxRunDuration: str("3600s")}
	with := func(p poolModel, f func(*poolModel)) poolModel { f(&p); return p }
	for _, tc := range []struct {
		name     string
		role     poolRole
		old, new poolModel
		want     bool
	}{
		{"nothing changes", onDemandRole, od, od, false},
		{"another reservation", onDemandRole, od, with(od, func(p *poolModel) { p.Reservation = str("r2") }), true},
		{"off the reservation", onDemandRole, od, with(od, func(p *poolModel) { p.ReservationAffinity, p.Reservation = str("none"), types.StringNull() }), true},
		{"state from before reservations", onDemandRole, poolModel{Name: str("od"), ReservationAffinity: str("none")}, poolModel{Name: str("od"), ReservationAffinity: str("none")}, false},
		{"run limit changed: in place", flexStartRole, fx, with(fx, func(p *poolModel) { p.MaxRunDuration = str("7200s") }), false},
		{"run limit set: in place", flexStartRole, with(fx, func(p *poolModel) { p.MaxRunDuration = types.StringNull() }), fx, false},
		{"run limit removed: GKE cannot unset it", flexStartRole, fx, with(fx, func(p *poolModel) { p.MaxRunDuration = types.StringNull() }), true},
	} {
		if got := poolReplaced(tc.role, tc.old, tc.new); got != tc.want {
			t.Errorf("%s: poolReplaced = %v, want %v", tc.name, got, tc.want)
		}
	}
}
