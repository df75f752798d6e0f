package poolpair

import (
	"fmt"
	"slices"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkedrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// Where the pools' nodes are: node_locations, both pools alike. Unset, GKE puts a new pool in the cluster's zones;
// what it chose is read back, kept in the pools' baselines, and a pool moved by hand shows in drift.

// zonesOf is a node_locations value as GKE's API takes it (NodePool.locations), sorted; nil when not known or unset.
func zonesOf(v types.Set) []string {
	if !tfvalue.Known(v) {
		return nil
	}
	return slices.Sorted(slices.Values(stringElems(v.Elements())))
}

func zonesValue(zones []string) types.Set {
	if len(zones) == 0 {
		return types.SetNull(types.StringType)
	}
	return types.SetValueMust(types.StringType, stringValues(slices.Sorted(slices.Values(zones))))
}

// readZones reads a live pool's zones into st where they differ from was, so that of two pools the one moved shows.
func readZones(was, st *poolPairModel, np *containerpb.NodePool) {
	if live := zonesValue(np.GetLocations()); !slices.Equal(zonesOf(was.NodeLocations), zonesOf(live)) {
		st.NodeLocations = live
	}
}

// planZones plans node_locations that the configuration leaves out: what state holds, GKE's choice, unless the apply
// moves a pool back to the zones it was made in (drift) or GKE has yet to choose (a new pair, or one in another
// cluster): then known after apply.
func planZones(configured types.Set, plan, prior *poolPairModel) {
	if !configured.IsNull() {
		return
	}
	if prior == nil || prior.NodeLocations.IsNull() || driftIn(prior, "locations") ||
		!clusterscope.Same(plan.Cluster.ValueString(), prior.Cluster.ValueString()) || !plan.Project.Equal(prior.Project) || !plan.Location.Equal(prior.Location) {
		plan.NodeLocations = types.SetUnknown(types.StringType)
		return
	}
	plan.NodeLocations = prior.NodeLocations
}

// driftIn says whether drift names field of either pool: state then holds that pool's value, which the apply
// changes back (keeping it would move the other pool).
func driftIn(prior *poolPairModel, field string) bool {
	_, fields := gkedrift.ByPool(tfvalue.StringList(prior.Drift))
	for _, fs := range fields {
		if slices.Contains(fs, field) {
			return true
		}
	}
	return false
}

// zonesMadeIn are the zones the pools were made in, from their baselines: what an apply that leaves node_locations
// out moves a pool back to.
func zonesMadeIn(baselines map[string]*containerpb.NodePool, names ...string) types.Set {
	for _, n := range names {
		if zones := baselines[n].GetLocations(); len(zones) > 0 {
			return zonesValue(zones)
		}
	}
	return types.SetNull(types.StringType)
}

// recordZones gives each baseline without zones (written before node_locations, or from a state without them) the
// zones its pool is in now, once, and says whether it did: from then on a pool moved by hand shows in drift.
func recordZones(baselines map[string]*containerpb.NodePool, live ...*containerpb.NodePool) bool {
	added := false
	for _, np := range live {
		if b := baselines[np.GetName()]; b != nil && len(b.GetLocations()) == 0 && len(np.GetLocations()) > 0 {
			b.Locations, added = slices.Sorted(slices.Values(np.GetLocations())), true
		}
	}
	return added
}

// validateZones checks at plan time, once the cluster's location is known, what the configuration shows of the
// pools' zones: each in the cluster's region, and each offering a TPU machine type where the catalog has its zones
// on record. New pools (newPools) without zones in the configuration (configZones null) go in the cluster's: a zonal
// cluster's zone must offer the machine type too, as GKE refuses the pools otherwise.
func validateZones(plan *poolPairModel, configZones types.Set, newPools bool, diags *diag.Diagnostics) {
	if !tfvalue.Known(plan.Location) || !tfvalue.Known(plan.MachineType) {
		return
	}
	location, machineType := plan.Location.ValueString(), plan.MachineType.ValueString()
	region := catalog.RegionOf(location)
	if configZones.IsNull() && !tfvalue.Known(plan.NodeLocations) {
		if newPools && catalog.ZoneRE.MatchString(location) && !catalog.OffersTPU(machineType, location) {
			diags.AddAttributeError(path.Root("machine_type"), "The cluster's zone lacks the machine type",
				lacksTPU("the cluster's zone, "+location, machineType, region))
		}
		return
	}
	at := path.Root("node_locations")
	for _, z := range zonesOf(plan.NodeLocations) {
		switch {
		case catalog.RegionOf(z) != region:
			diags.AddAttributeError(at, "A zone outside the cluster's region",
				fmt.Sprintf("node_locations has %s, but the cluster is in %s: a node pool's zones must be zones of its cluster's region (%s).", z, location, region))
		case !catalog.OffersTPU(machineType, z):
			diags.AddAttributeError(at, "A zone without the machine type",
				lacksTPU(z, machineType, region))
		}
	}
}

// lacksTPU says that the pools would be in a zone (where) that lacks the machine type, and where they can go instead:
// zones of the cluster's region that offer it, or, when none does, a cluster elsewhere.
func lacksTPU(where, machineType, region string) string {
	zones := catalog.TPUZones(machineType)
	var here []string
	for _, z := range zones {
		if catalog.RegionOf(z) == region {
			here = append(here, z)
		}
	}
	instead := fmt.Sprintf("Set node_locations to zones of the cluster's region that do: %s.", strings.Join(here, ", "))
	if len(here) == 0 {
		instead = fmt.Sprintf("None of them is in the cluster's region, %s: the pools need a cluster in one of their regions.", region)
	}
	return fmt.Sprintf("The pools would be in %s, which does not offer %s: Cloud TPU's \"TPU regions and zones\" lists it in %s. %s",
		where, machineType, strings.Join(zones, ", "), instead)
}
