package poolpair

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// reservationNeed is what the on-demand pools ask of the reservation they name: its machine type, the nodes one job
// needs from one pool (a multi-host TPU slice is made whole or not at all), and the nodes all the pools may grow to.
type reservationNeed struct {
	machineType string
	unit, most  int64
}

// reservationTarget is where a specific reservation is read: its project ("" for the pool's own), name and the
// zones the pools are in.
type reservationTarget struct {
	project, name string
	zones         []string
}

// targetOf is the reservation the plan's on-demand pool names and where to read it; ok is false when the pool names
// none, or when a value it needs is not known yet.
func targetOf(plan *poolPairModel, ref clusterscope.Ref) (reservationTarget, bool) {
	p, ok := onDemandRole.decodePool(onDemandRole.get(plan))
	if !ok || p.ReservationAffinity.ValueString() != "specific" || !tfvalue.Known(p.Reservation) || p.Reservation.ValueString() == "" {
		return reservationTarget{}, false
	}
	t := reservationTarget{name: p.Reservation.ValueString()}
	// GKE takes NAME or projects/OWNER/reservations/NAME, either followed by a block; blocks draw on their reservation.
	if rest, ok := strings.CutPrefix(t.name, "projects/"); ok {
		t.project, t.name, _ = strings.Cut(rest, "/reservations/")
	}
	t.name, _, _ = strings.Cut(t.name, "/reservationBlocks/")
	if t.project == "" {
		t.project = ref.Project
	}
	t.zones = zonesOf(plan.NodeLocations)
	if len(t.zones) == 0 && strings.Count(ref.Location, "-") == 2 {
		t.zones = []string{ref.Location} // a zonal cluster's pools are in its zone
	}
	return t, len(t.zones) > 0 && t.project != ""
}

// planReservation reads the reservation the on-demand pools name and says, before anything is made, when it cannot
// give them what they need: a pool of specific affinity gets nodes from that reservation only, so one too small (or
// of another machine type) leaves plan A's jobs waiting on a scale-up that never succeeds. Only a plan that makes the
// pools or changes what they draw reads it; a plan without credentials or network skips it.
func planReservation(ctx context.Context, c clusterscope.Clients, t reservationTarget, need reservationNeed, diags *diag.Diagnostics) {
	client, err := c.GKE(ctx)
	if err != nil {
		tflog.Debug(ctx, "reservation not checked: no Google client", map[string]any{"error": err.Error()})
		return
	}
	var res *gke.Reservation
	for _, zone := range t.zones {
		if res, err = client.Reservation(ctx, t.project, zone, t.name); err != nil || res != nil {
			break
		}
	}
	at := path.Root("on_demand").AtName("reservation")
	switch {
	case err != nil:
		diags.AddAttributeWarning(at, "Reservation not checked", fmt.Sprintf("%v. The plan could not check that the reservation holds the on-demand pools' nodes.", err))
	case res == nil:
		diags.AddAttributeWarning(at, "Reservation not found", fmt.Sprintf(
			"No reservation %s in %s of project %s. A pool of specific reservation affinity gets nodes from that reservation only: "+
				"unless something else makes it before the pools scale up, plan A's jobs wait for nodes that never come.",
			t.name, strings.Join(t.zones, ", "), t.project))
	case res.MachineType != "" && res.MachineType != need.machineType:
		diags.AddAttributeError(at, "Reservation of another machine type", fmt.Sprintf(
			"Reservation %s in %s holds VMs of %s, not %s: the on-demand pools, which take nodes from it only, could never get one. "+
				"Name a reservation of %s, or if this apply changes the reservation, apply that change first.",
			res.Name, res.Zone, res.MachineType, need.machineType, need.machineType))
	case res.Count < need.unit:
		diags.AddAttributeError(at, "Reservation smaller than one slice", fmt.Sprintf(
			"Reservation %s in %s holds %d VMs; a pool of this pair takes %d at once (one slice), so the on-demand pools, which take "+
				"nodes from it only, could never get one. Make the reservation at least %d VMs or name another; if this apply "+
				"resizes it, apply that change first.",
			res.Name, res.Zone, res.Count, need.unit, need.unit))
	case res.Count < need.most:
		fits := fmt.Sprintf("%d nodes", res.Count)
		if need.unit > 1 {
			fits = fmt.Sprintf("%d slices of %d nodes", res.Count/need.unit, need.unit)
		}
		diags.AddAttributeWarning(at, "Reservation smaller than the pools", fmt.Sprintf(
			"Reservation %s in %s holds %d VMs; the on-demand pools may grow to %d. Scale-ups past the reservation fail, so "+
				"give plan A's Kueue flavor a quota of no more than %s.", res.Name, res.Zone, res.Count, need.most, fits))
	}
}

// reservationPlanned says whether the plan makes the on-demand pools or changes what they draw from a reservation.
func reservationPlanned(plan, prior *poolPairModel, slices, priorSlices int64) bool {
	if prior == nil || slices != priorSlices {
		return true
	}
	p, _ := onDemandRole.decodePool(onDemandRole.get(plan))
	old, _ := onDemandRole.decodePool(onDemandRole.get(prior))
	return !p.ReservationAffinity.Equal(old.ReservationAffinity) || !p.Reservation.Equal(old.Reservation) ||
		!plan.MachineType.Equal(prior.MachineType) || !plan.MaxNodes.Equal(prior.MaxNodes) || !plan.NodeLocations.Equal(prior.NodeLocations)
}
