package catalog

import "strings"

// Boot disk types of GKE nodes. GKE's docs (kubernetes-engine/docs/how-to/custom-boot-disks) list pd-balanced
// ("default in 1.24 or later"), pd-standard, pd-ssd and hyperdisk-balanced.
const (
	PDBalanced        = "pd-balanced"
	HyperdiskBalanced = "hyperdisk-balanced"
)

// DiskTypes are the boot disk types a GKE node pool may ask for.
var DiskTypes = []string{PDBalanced, "pd-standard", "pd-ssd", HyperdiskBalanced}

// DefaultDiskSizeGB and MinDiskSizeGB are GKE's (API reference, NodeConfig.disk_size_gb: "The smallest allowed disk
// size is 10GB. If unspecified, the default disk size is 100GB.").
const (
	DefaultDiskSizeGB = 100
	MinDiskSizeGB     = 10
)

// bootFamily is what is on record of a machine family's boot disks: the types it takes (nil: no limit on record) and
// the type GKE gives a pool that asks for none ("": not on record).
type bootFamily struct {
	types []string
	def   string
}

// bootFamilies by machine type prefix. Sources:
//   - Cloud TPU "Storage options" (tpu/docs/storage-options-compute), table "TPU generation and supported disk types":
//     TPU7x and v6e take Hyperdisk Balanced and Hyperdisk ML, v5p and v5e Balanced Persistent Disk and Hyperdisk ML;
//     Compute Engine "Hyperdisk Balanced" (compute/docs/disks/hd-types/hyperdisk-balanced): Hyperdisk Balanced is
//     the only Hyperdisk a boot disk can be, TPU VMs included.
//   - GKE custom-boot-disks: "By default, GKE uses balanced Persistent Disks in version 1.24 or later", for the
//     families Compute Engine's AttachedDiskInitializeParams.diskType names as Persistent Disk ones (first and second
//     generation, C3, C3D, M3); GKE's answers recorded in Config Connector's traffic: e2 gets pd-balanced, n4
//     hyperdisk-balanced.
//   - Users' reports of GKE and Compute Engine refusals, not a doc: "pd-standard disk type cannot be used by
//     a4-highgpu-8g machine type", "pd-balanced disk type cannot be used by a4x-highgpu-4g machine type",
//     "[pd-balanced, c4-standard-16] features are not compatible", "[pd-standard, n4-standard-2] features are not
//     compatible". A3 Ultra is inferred Hyperdisk-only from Vertex AI's DiskSpec ("for A3U machines, the default
//     value is hyperdisk-balanced") and the Google provider's A3 Ultra test, which sets no disk type.
//
// A3 High, Mega and Edge are not here: whether GKE boots them from Persistent Disk is not on record.
var bootFamilies = map[string]bootFamily{
	"tpu7x-":       {[]string{HyperdiskBalanced}, HyperdiskBalanced},
	"ct6e-":        {[]string{HyperdiskBalanced}, HyperdiskBalanced},
	"ct5p-":        {[]string{PDBalanced}, PDBalanced},
	"ct5lp-":       {[]string{PDBalanced}, PDBalanced},
	"a4-":          {[]string{HyperdiskBalanced}, HyperdiskBalanced},
	"a4x-":         {[]string{HyperdiskBalanced}, HyperdiskBalanced},
	"a3-ultragpu-": {[]string{HyperdiskBalanced}, HyperdiskBalanced},
	"n4-":          {[]string{HyperdiskBalanced}, HyperdiskBalanced},
	"c4-":          {[]string{HyperdiskBalanced}, HyperdiskBalanced},
}

// persistentDiskFamilies boot from Persistent Disk, pd-balanced by default (sources above).
var persistentDiskFamilies = []string{"e2-", "n1-", "n2-", "n2d-", "t2d-", "t2a-", "c2-", "c2d-", "c3-", "c3d-", "m1-", "m2-", "m3-", "a2-", "g2-"}

func family(machineType string) bootFamily {
	for prefix, f := range bootFamilies {
		if strings.HasPrefix(machineType, prefix) {
			return f
		}
	}
	for _, prefix := range persistentDiskFamilies {
		if strings.HasPrefix(machineType, prefix) {
			return bootFamily{def: PDBalanced}
		}
	}
	return bootFamily{}
}

// BootDisks are the boot disk types a machine type's nodes take, nil when no limit is on record.
func BootDisks(machineType string) []string { return family(machineType).types }

// DefaultDiskType is the boot disk GKE gives a pool of machineType that asks for none, "" when that is not on record.
func DefaultDiskType(machineType string) string { return family(machineType).def }

// TakesDisk says whether a machine type's nodes can boot from diskType, as far as is on record.
func TakesDisk(machineType, diskType string) bool {
	types := BootDisks(machineType)
	return types == nil || contains(types, diskType)
}
