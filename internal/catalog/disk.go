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

// bootDisks are the boot disks of the machine families that take only some types; a family not here takes any.
// Sources: Cloud TPU "Storage options" (tpu/docs/storage-options-compute), table "TPU generation and supported disk
// types": TPU7x and v6e take Hyperdisk Balanced and Hyperdisk ML, v5p and v5e Balanced Persistent Disk and Hyperdisk
// ML; Compute Engine "Hyperdisk Balanced" (compute/docs/disks/hd-types/hyperdisk-balanced): Hyperdisk Balanced is the
// only Hyperdisk a boot disk can be, TPU VMs included. A4 and A4X refuse Persistent Disk boot disks (GKE's errors
// "pd-standard disk type cannot be used by a4-highgpu-8g machine type", "pd-balanced disk type cannot be used by
// a4x-highgpu-4g machine type"), and A3 Ultra boots from Hyperdisk Balanced (Vertex AI DiskSpec: "for A3U machines,
// the default value is hyperdisk-balanced").
var bootDisks = map[string][]string{
	"tpu7x-":       {HyperdiskBalanced},
	"ct6e-":        {HyperdiskBalanced},
	"ct5p-":        {PDBalanced},
	"ct5lp-":       {PDBalanced},
	"a4-":          {HyperdiskBalanced},
	"a4x-":         {HyperdiskBalanced},
	"a3-ultragpu-": {HyperdiskBalanced},
}

// BootDisks are the boot disk types a machine type's nodes take, nil when its family takes any of DiskTypes.
func BootDisks(machineType string) []string {
	for prefix, types := range bootDisks {
		if strings.HasPrefix(machineType, prefix) {
			return types
		}
	}
	return nil
}

// DefaultDiskType is the boot disk GKE gives a node pool that asks for none: pd-balanced (custom-boot-disks: "By
// default, GKE uses balanced Persistent Disks in version 1.24 or later"), or, for a family that refuses it, the one
// type it takes (GKE's answers recorded in Config Connector's node pool traffic: an n4 pool asked without a type
// reads back hyperdisk-balanced).
func DefaultDiskType(machineType string) string {
	if types := BootDisks(machineType); len(types) > 0 && !contains(types, PDBalanced) {
		return types[0]
	}
	return PDBalanced
}

// TakesDisk says whether a machine type's nodes can boot from diskType.
func TakesDisk(machineType, diskType string) bool {
	types := BootDisks(machineType)
	return types == nil || contains(types, diskType)
}
