package catalog

import (
	"strconv"
	"strings"
)

// Shape is what one VM of a machine type brings to a node: vCPUs, memory in GB as Compute Engine lists it (binary
// gigabytes) and, for TPU machine types, the google.com/tpu chips.
type Shape struct {
	VCPUs    int
	MemoryGB int
	TPUChips int
	// GPUs are the nvidia.com/gpu of a GPU machine type.
	GPUs int
}

// Sources: Compute Engine "TPU machines" (compute/docs/tpus/tpu-machines) and Cloud TPU "TPU v5e" (tpu/docs/v5e) for
// the TPU VMs; Compute Engine "General-purpose machine family" (compute/docs/general-purpose-machines) for the
// standard, highmem and highcpu series: 4, 8 and 1 GB per vCPU (N1: 3.75), e2-medium 2 vCPUs and 4 GB.
var tpuShapes = map[string]Shape{
	"ct6e-standard-1t": {VCPUs: 44, MemoryGB: 176, TPUChips: 1},
	"ct6e-standard-4t": {VCPUs: 180, MemoryGB: 720, TPUChips: 4},
	"ct6e-standard-8t": {VCPUs: 180, MemoryGB: 1440, TPUChips: 8},
	"ct5lp-hightpu-1t": {VCPUs: 24, MemoryGB: 48, TPUChips: 1},
	"ct5lp-hightpu-4t": {VCPUs: 112, MemoryGB: 192, TPUChips: 4},
	"ct5lp-hightpu-8t": {VCPUs: 224, MemoryGB: 384, TPUChips: 8},
	"ct5p-hightpu-4t":  {VCPUs: 208, MemoryGB: 448, TPUChips: 4},
	"ct4p-hightpu-4t":  {VCPUs: 240, MemoryGB: 407, TPUChips: 4},
	// Cloud TPU "TPU7x" (tpu/docs/tpu7x): 224 vCPUs and 960 GB of RAM per 4-chip VM.
	"tpu7x-standard-4t": {VCPUs: 224, MemoryGB: 960, TPUChips: 4},
}

// MachineShape returns the shape of a machine type: a known TPU type, or a predefined general-purpose type whose
// name gives its size (e2-medium, n2-standard-16, n2d-highmem-8, ...). ok is false for anything else.
func MachineShape(machineType string) (Shape, bool) {
	if s, ok := tpuShapes[machineType]; ok {
		return s, true
	}
	if g, ok := LookupGPU(machineType); ok {
		return Shape{VCPUs: g.VCPUs, MemoryGB: g.MemoryGB, GPUs: g.Count}, true
	}
	if machineType == "e2-medium" {
		return Shape{VCPUs: 2, MemoryGB: 4}, true
	}
	parts := strings.Split(machineType, "-")
	if len(parts) != 3 {
		return Shape{}, false
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil || n < 1 {
		return Shape{}, false
	}
	perCPU := map[string]float64{"standard": 4, "highmem": 8, "highcpu": 1}[parts[1]]
	if parts[0] == "n1" && parts[1] == "standard" {
		perCPU = 3.75
	}
	if perCPU == 0 {
		return Shape{}, false
	}
	return Shape{VCPUs: n, MemoryGB: int(perCPU * float64(n))}, true
}
