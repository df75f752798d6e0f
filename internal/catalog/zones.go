package catalog

import (
	"regexp"
	"slices"
	"strings"
)

// tpuZones are the zones that offer each TPU generation, by its accelerator label, for the one geography whose table
// we could read whole: North America, standard zones. Source: Cloud TPU "TPU regions and zones"
// (docs.cloud.google.com/tpu/docs/regions-zones, read 2026-12-06; the v5p, v5e and v4 rows from its types-zones
// rendering). Other geographies and the AI zones (such as us-central1-ai1a) are not on record, and not checked.
var tpuZones = map[string][]string{
	"tpu7x":                {"us-central1-c"},
	"tpu-v6e-slice":        {"us-central1-b", "us-east1-d", "us-east5-a", "us-east5-b"},
	"tpu-v5p-slice":        {"us-central1-a", "us-east5-a"},
	"tpu-v5-lite-podslice": {"us-central1-a", "us-south1-a", "us-west1-c", "us-west4-a"},
	"tpu-v4-podslice":      {"us-central2-b"},
}

// standardZoneRE is a Compute Engine zone of a region's usual letters (us-east5-b), not an AI zone (us-south1-ai1b).
var standardZoneRE = regexp.MustCompile(`^[a-z]+-[a-z]+[0-9]+-[a-z]$`)

// ZoneRE is any Compute Engine zone name: a region and a zone suffix, standard or AI.
var ZoneRE = regexp.MustCompile(`^[a-z]+-[a-z]+[0-9]+-[a-z0-9]+$`)

// TPUZonesOnRecord says whether the catalog knows which TPUs zone offers: a standard zone of North America.
func TPUZonesOnRecord(zone string) bool {
	return standardZoneRE.MatchString(zone) && (strings.HasPrefix(zone, "us-") || strings.HasPrefix(zone, "northamerica-"))
}

// OffersTPU says whether zone offers the TPU machine type; a zone or machine type not on record does.
func OffersTPU(machineType, zone string) bool {
	m, ok := Lookup(machineType)
	if !ok || !TPUZonesOnRecord(zone) {
		return true
	}
	return slices.Contains(tpuZones[m.Accelerator], zone)
}

// TPUZones are the zones on record that offer the TPU machine type, sorted.
func TPUZones(machineType string) []string {
	m, _ := Lookup(machineType)
	return slices.Sorted(slices.Values(tpuZones[m.Accelerator]))
}

// RegionOf is the region of a zone (us-east5 of us-east5-b), or location itself when it is a region.
func RegionOf(location string) string {
	if !ZoneRE.MatchString(location) {
		return location
	}
	return location[:strings.LastIndex(location, "-")]
}
