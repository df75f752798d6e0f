package catalog

import "testing"

func TestBootDisks(t *testing.T) {
	for _, tc := range []struct {
		machine, def string
		takes        map[string]bool
	}{
		{"ct6e-standard-4t", HyperdiskBalanced, map[string]bool{HyperdiskBalanced: true, PDBalanced: false, "pd-ssd": false}},
		{"tpu7x-standard-4t", HyperdiskBalanced, map[string]bool{HyperdiskBalanced: true, PDBalanced: false}},
		{"ct5p-hightpu-4t", PDBalanced, map[string]bool{PDBalanced: true, HyperdiskBalanced: false}},
		{"ct5lp-hightpu-4t", PDBalanced, map[string]bool{PDBalanced: true, "pd-standard": false}},
		{"a4-highgpu-8g", HyperdiskBalanced, map[string]bool{"pd-standard": false, HyperdiskBalanced: true}},
		{"a4x-highgpu-4g", HyperdiskBalanced, map[string]bool{PDBalanced: false}},
		{"a3-ultragpu-8g", HyperdiskBalanced, map[string]bool{PDBalanced: false}},
		{"a3-highgpu-8g", "", map[string]bool{PDBalanced: true, HyperdiskBalanced: true}},
		{"n4-standard-2", HyperdiskBalanced, map[string]bool{"pd-standard": false}},
		{"e2-medium", PDBalanced, nil},
		{"z9-unknown-1", "", map[string]bool{"pd-ssd": true}},
		{"g2-standard-4", PDBalanced, nil},
	} {
		if got := DefaultDiskType(tc.machine); got != tc.def {
			t.Errorf("DefaultDiskType(%s) = %s, want %s", tc.machine, got, tc.def)
		}
		for disk, want := range tc.takes {
			if got := TakesDisk(tc.machine, disk); got != want {
				t.Errorf("TakesDisk(%s, %s) = %v, want %v", tc.machine, disk, got, want)
			}
		}
	}
}
