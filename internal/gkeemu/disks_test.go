package gkeemu

import (
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
)

func TestBootDisk(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		machine, disk string
		size          int32
		want          string
	}{
		{"ct6e-standard-4t", "", 0, ""},
		{"ct6e-standard-4t", "hyperdisk-balanced", 200, ""},
		{"ct6e-standard-4t", "pd-balanced", 0, "pd-balanced disk type cannot be used by ct6e-standard-4t machine type."},
		{"ct5p-hightpu-4t", "hyperdisk-balanced", 0, "hyperdisk-balanced disk type cannot be used by ct5p-hightpu-4t machine type."},
		{"a3-highgpu-8g", "pd-ssd", 0, ""},
		{"a3-highgpu-8g", "pd-fast", 0, `gkeemu: disk type "pd-fast" is not one of`},
		{"ct6e-standard-4t", "", 9, "gkeemu: boot disk size 9 GB is too small: it must be at least 10 GB."},
	} {
		e := validateBootDisk(tc.machine, tc.disk, tc.size)
		switch {
		case tc.want == "" && e != nil:
			t.Errorf("%s %s %d: refused: %s", tc.machine, tc.disk, tc.size, e.message)
		case tc.want != "" && (e == nil || !strings.Contains(e.message, tc.want) || e.httpCode != 400):
			t.Errorf("%s %s %d: got %+v, want a 400 with %q", tc.machine, tc.disk, tc.size, e, tc.want)
		}
	}
	for machine, want := range map[string]string{"ct6e-standard-4t": "hyperdisk-balanced", "ct5p-hightpu-4t": "pd-balanced", "tpu7x-standard-4t": "hyperdisk-balanced", "g2-standard-4": "pd-balanced"} {
		cfg := &containerpb.NodeConfig{MachineType: machine}
		fillBootDisk(cfg)
		if cfg.DiskType != want || cfg.DiskSizeGb != 100 || cfg.GetBootDisk().GetDiskType() != want || cfg.GetBootDisk().GetSizeGb() != 100 {
			t.Errorf("%s: boot disk %s %d (bootDisk %v), want %s 100", machine, cfg.DiskType, cfg.DiskSizeGb, cfg.GetBootDisk(), want)
		}
	}
}
