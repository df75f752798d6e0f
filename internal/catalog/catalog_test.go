package catalog

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewSlice(t *testing.T) {
	cases := []struct {
		machine, topology string
		want              Slice
		wantErr           string
	}{
		{machine: "ct6e-standard-4t", topology: "4x4", want: Slice{MachineType: "ct6e-standard-4t", Accelerator: "tpu-v6e-slice", Topology: "4x4", ChipsPerNode: 4, NodesPerSlice: 4, ChipsPerSlice: 16}},
		{machine: "ct6e-standard-4t", topology: "2x2", want: Slice{MachineType: "ct6e-standard-4t", Accelerator: "tpu-v6e-slice", Topology: "2x2", ChipsPerNode: 4, NodesPerSlice: 1, ChipsPerSlice: 4}},
		{machine: "ct6e-standard-8t", topology: "2x4", want: Slice{MachineType: "ct6e-standard-8t", Accelerator: "tpu-v6e-slice", Topology: "2x4", ChipsPerNode: 8, NodesPerSlice: 1, ChipsPerSlice: 8}},
		{machine: "ct5lp-hightpu-4t", topology: "16x16", want: Slice{MachineType: "ct5lp-hightpu-4t", Accelerator: "tpu-v5-lite-podslice", Topology: "16x16", ChipsPerNode: 4, NodesPerSlice: 64, ChipsPerSlice: 256}},
		{machine: "ct5p-hightpu-4t", topology: "2x2x4", want: Slice{MachineType: "ct5p-hightpu-4t", Accelerator: "tpu-v5p-slice", Topology: "2x2x4", ChipsPerNode: 4, NodesPerSlice: 4, ChipsPerSlice: 16}},
		{machine: "ct6e-standard-9t", topology: "4x4", wantErr: "unknown TPU machine type"},
		{machine: "ct6e-standard-4t", topology: "4x3", wantErr: "does not fit machine type"},
		{machine: "ct6e-standard-8t", topology: "4x4", wantErr: "it supports 2x4"},
		{machine: "ct6e-standard-4t", topology: "4x4x4", wantErr: "has 3 dimensions"},
		{machine: "ct5p-hightpu-4t", topology: "1x1x1", wantErr: "not a multiple of the 4 chips"},
		{machine: "ct6e-standard-4t", topology: "4by4", wantErr: "must look like AxB"},
		{machine: "ct6e-standard-4t", topology: "0x4", wantErr: "positive whole numbers"},
		{machine: "ct6e-standard-4t", topology: "04x4", wantErr: "positive whole numbers"},
		{machine: "ct6e-standard-4t", topology: "", wantErr: "must look like AxB"},
	}
	for _, tc := range cases {
		t.Run(tc.machine+"/"+tc.topology, func(t *testing.T) {
			got, err := NewSlice(tc.machine, tc.topology)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("NewSlice() error = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewSlice() unexpected error: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("NewSlice() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIsTPU(t *testing.T) {
	for name, want := range map[string]bool{"ct6e-standard-4t": true, "ct9x-unknown": true, "n2-standard-16": false} {
		if got := IsTPU(name); got != want {
			t.Errorf("IsTPU(%q) = %v, want %v", name, got, want)
		}
	}
}
