package gkeemu

import (
	"cmp"
	"slices"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
)

// validateBootDisk refuses a boot disk GKE would: an unknown type, a type the machine family cannot boot from (in
// the words users report from GKE: "pd-standard disk type cannot be used by a4-highgpu-8g machine type."), or less
// than GKE's 10 GB. GKE's texts for the first and the last are not on record: those are the emulator's plain words,
// marked "gkeemu:".
func validateBootDisk(machineType, diskType string, sizeGB int32) *apiError {
	if diskType != "" && !slices.Contains(catalog.DiskTypes, diskType) {
		return invalid("gkeemu: disk type %q is not one of %s.", diskType, strings.Join(catalog.DiskTypes, ", "))
	}
	if diskType != "" && !catalog.TakesDisk(machineType, diskType) {
		return invalid("%s disk type cannot be used by %s machine type.", diskType, machineType)
	}
	if sizeGB != 0 && sizeGB < catalog.MinDiskSizeGB {
		return invalid("gkeemu: boot disk size %d GB is too small: it must be at least %d GB.", sizeGB, catalog.MinDiskSizeGB)
	}
	return nil
}

// fillBootDisk gives a new pool GKE's boot disk where the request leaves it out, and mirrors it in config.bootDisk as
// GKE's answers do.
func fillBootDisk(cfg *containerpb.NodeConfig) {
	if cfg.DiskSizeGb == 0 {
		cfg.DiskSizeGb = catalog.DefaultDiskSizeGB
	}
	if cfg.DiskType == "" {
		// Where the catalog has no default on record for the family, GKE's documented one (custom-boot-disks).
		cfg.DiskType = cmp.Or(catalog.DefaultDiskType(cfg.MachineType), catalog.PDBalanced)
	}
	syncBootDisk(cfg)
}

func syncBootDisk(cfg *containerpb.NodeConfig) {
	if cfg.BootDisk == nil {
		cfg.BootDisk = &containerpb.BootDisk{}
	}
	cfg.BootDisk.DiskType, cfg.BootDisk.SizeGb = cfg.DiskType, int64(cfg.DiskSizeGb)
}
