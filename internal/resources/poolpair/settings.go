package poolpair

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// reservationNameKey is the key GKE's reservation affinity takes for a specific reservation (NodeConfig
// reservationAffinity.key; gcloud's --reservation sets it).
const reservationNameKey = "compute.googleapis.com/reservation-name"

// reservationAnyThenFail is plan A on any matching reservation and nothing else (API reference, ReservationAffinity
// ANY_RESERVATION_THEN_FAIL: "If no reservation is available, fail the node creation").
const reservationAnyThenFail = "any-then-fail"

// maxRunDurationLimit is how long VMs that DWS provisions run at most (GKE docs, concepts/dws: "for up to seven
// days"); a run limit may only cut that short.
const maxRunDurationLimit = 7 * 24 * time.Hour

// expandReservationAffinity is plan A's reservation affinity as gcloud's --reservation-affinity and --reservation make
// it; "any" sends none, GKE's default.
func expandReservationAffinity(p poolModel) *containerpb.ReservationAffinity {
	switch p.ReservationAffinity.ValueString() {
	case "any":
		return nil
	case reservationAnyThenFail:
		return &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_ANY_RESERVATION_THEN_FAIL}
	case "specific":
		return &containerpb.ReservationAffinity{
			ConsumeReservationType: containerpb.ReservationAffinity_SPECIFIC_RESERVATION,
			Key:                    reservationNameKey,
			Values:                 []string{p.Reservation.ValueString()},
		}
	default:
		return &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_NO_RESERVATION}
	}
}

// reservationOf is the reservation a pool of affinity SPECIFIC_RESERVATION consumes, "" for any other pool.
func reservationOf(np *containerpb.NodePool) string {
	ra := np.GetConfig().GetReservationAffinity()
	if ra.GetConsumeReservationType() != containerpb.ReservationAffinity_SPECIFIC_RESERVATION || len(ra.GetValues()) == 0 {
		return ""
	}
	return ra.Values[0]
}

// parseRunDuration reads a run limit written as GKE's API and gcloud's --max-run-duration write it: whole seconds
// with an "s" ("86400s"). ok is false for null, unknown or anything else.
func parseRunDuration(v types.String) (time.Duration, bool) {
	if v.IsNull() || v.IsUnknown() {
		return 0, false
	}
	digits, ok := strings.CutSuffix(v.ValueString(), "s")
	n, err := strconv.ParseInt(digits, 10, 64)
	if !ok || err != nil || n <= 0 || strings.HasPrefix(digits, "+") || strings.HasPrefix(digits, "0") || n > int64(maxRunDurationLimit/time.Second) {
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}

func formatRunDuration(d time.Duration) string {
	if d%time.Second != 0 {
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
	}
	return strconv.FormatInt(int64(d/time.Second), 10) + "s"
}

// validatePoolSettings checks what the configuration alone shows of the pools' own settings: a reservation goes
// with affinity specific and only with it, as gcloud requires of --reservation, and a run limit stays within the
// 7 days DWS VMs run.
func validatePoolSettings(od poolModel, odOK bool, fx poolModel, fxOK bool, diags *diag.Diagnostics) {
	if odOK && !od.ReservationAffinity.IsUnknown() && !od.Reservation.IsUnknown() {
		affinity := od.ReservationAffinity.ValueString()
		if affinity == "" {
			affinity = "none"
		}
		switch {
		case affinity == "specific" && od.Reservation.IsNull():
			diags.AddAttributeError(path.Root("on_demand").AtName("reservation"), "A specific reservation needs its name",
				`on_demand.reservation_affinity is "specific": set on_demand.reservation to the reservation plan A consumes.`)
		case affinity != "specific" && !od.Reservation.IsNull():
			diags.AddAttributeError(path.Root("on_demand").AtName("reservation_affinity"), "A reservation needs reservation_affinity = \"specific\"",
				fmt.Sprintf(`on_demand.reservation names %q, but on_demand.reservation_affinity is %q: GKE consumes a named reservation only with affinity "specific". Set it, or leave reservation out.`,
					od.Reservation.ValueString(), affinity))
		}
	}
	// GKE's surge upgrade needs room to work in: at least one of the two above zero (GKE docs, node pool upgrade
	// strategies, as Terraform's google provider and Google's Cluster Toolkit restate it). Unset, each is its default.
	if odOK && od.BlueGreen.IsNull() && !od.MaxSurge.IsUnknown() && !od.MaxUnavailable.IsUnknown() &&
		od.MaxSurge.ValueInt64() == 0 && !od.MaxSurge.IsNull() && od.MaxUnavailable.ValueInt64() == 0 {
		diags.AddAttributeError(path.Root("on_demand").AtName("max_surge"), "An upgrade that may neither add nor take away a node",
			"on_demand.max_surge and on_demand.max_unavailable are both 0: a surge upgrade must add a node or take one away, so GKE needs at least one of them above 0. Set max_surge = 1 (the default) or max_unavailable = 1.")
	}
	if bg, ok := decodeBlueGreen(od.BlueGreen); odOK && ok && tfvalue.Known(bg.BatchPercentage) {
		share, at := bg.BatchPercentage.ValueFloat64(), path.Root("on_demand").AtName("blue_green").AtName("batch_percentage")
		switch {
		case share <= 0:
			diags.AddAttributeError(at, "A batch of no nodes",
				fmt.Sprintf("on_demand.blue_green.batch_percentage is %v: GKE takes a share above 0 and at most 1 (API reference, "+
					"BlueGreenSettings.StandardRolloutPolicy), such as 0.25 for a quarter of the nodes per batch.", share))
		case asGKEKeepsShare(share) != share:
			// Read back, the share would differ from the configuration, and the apply would fail as inconsistent.
			diags.AddAttributeError(at, "A batch share GKE cannot keep as written",
				fmt.Sprintf("on_demand.blue_green.batch_percentage is %v, but GKE keeps the share as a 32-bit float, which reads back as %v. "+
					"Write it with at most 7 significant digits, such as %v.", share, asGKEKeepsShare(share), asGKEKeepsShare(share)))
		}
	}
	if fxOK && tfvalue.Known(fx.MaxRunDuration) && runDurationRE.MatchString(fx.MaxRunDuration.ValueString()) {
		if _, ok := parseRunDuration(fx.MaxRunDuration); !ok {
			diags.AddAttributeError(path.Root("flex_start").AtName("max_run_duration"), "Run limit longer than DWS VMs run",
				fmt.Sprintf("flex_start.max_run_duration is %s, but VMs that the Dynamic Workload Scheduler provisions run for at most 7 days (604800s); a run limit can only cut that short.",
					fx.MaxRunDuration.ValueString()))
		}
	}
}
