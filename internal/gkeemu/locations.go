package gkeemu

import (
	"cloud.google.com/go/container/apiv1/containerpb"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
)

// checkLocations refuses node pool zones (NodePool.locations, gcloud's --node-locations) GKE would: a name that is
// no zone, a zone outside the cluster's region, and a zone that does not offer the pool's TPU machine type, in the
// words GKE uses when a machine type is missing from a zone (Compute Engine's GCE_NOT_FOUND, as GKE relays it). GKE's
// words for the region check and the multi-host check are not on record: those refusals are the emulator's plain
// words, marked "gkeemu:". A pool without zones of its own is in the cluster's (see checkClusterZones).
func checkLocations(c *cluster, np *containerpb.NodePool, machineType string, zones []string) *apiError {
	region := catalog.RegionOf(c.pb.Location)
	if sl, e := slice(np); e == nil && sl.MultiHost() && len(zones) > 1 {
		// A slice's chips are joined by ICI in one place; GKE's how-to gives a multi-host pool one zone. Its words
		// for more are not on record (plain words, marked as the emulator's).
		return invalid("gkeemu: node pool %s is a multi-host TPU slice (%s of %s), which takes one zone, not %d (%v); give it one zone.", np.GetName(), sl.Topology, sl.MachineType, len(zones), zones)
	}
	for _, z := range zones {
		switch {
		case !catalog.ZoneRE.MatchString(z):
			return invalid("Location %q does not exist.", z)
		case catalog.RegionOf(z) != region:
			return invalid("gkeemu: node pool locations must be zones of the cluster's region %s; %s is not.", region, z)
		case !catalog.OffersTPU(machineType, z):
			return machineTypeNotFound(machineType, z)
		}
	}
	return nil
}

// checkClusterZones refuses a new pool without zones of its own whose machine type a zone of the cluster lacks: GKE
// creates such a pool in the cluster's zones, and Compute refuses the instance template there.
func checkClusterZones(c *cluster, np *containerpb.NodePool) *apiError {
	if len(np.GetLocations()) > 0 {
		return nil
	}
	machineType := np.GetConfig().GetMachineType()
	for _, z := range poolZones(c, np) {
		if !catalog.OffersTPU(machineType, z) {
			return machineTypeNotFound(machineType, z)
		}
	}
	return nil
}

// machineTypeNotFound is Compute's refusal of a machine type a zone lacks, as GKE relays it.
func machineTypeNotFound(machineType, zone string) *apiError {
	return invalid("Invalid machine type %q in zone %q: GCE_NOT_FOUND", machineType, zone)
}
