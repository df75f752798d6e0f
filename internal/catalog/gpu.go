package catalog

import (
	"sort"
	"strings"
)

// GPUMachineType is a GKE machine type with GPUs attached: what its nodes carry and how the Dynamic Workload
// Scheduler may provision it.
type GPUMachineType struct {
	Name string
	// Accelerator is the --accelerator type, and the value of the cloud.google.com/gke-accelerator node label.
	Accelerator string
	// Count is the GPUs of one VM (nvidia.com/gpu).
	Count           int
	VCPUs, MemoryGB int
	// NoFlexStart: the family cannot run flex-start VMs (A4X).
	NoFlexStart bool
	// NoOnDemand: the type runs only as Spot or flex-start VMs, so plan A cannot be an on-demand pool of it.
	NoOnDemand bool
}

// Source: Compute Engine "Accelerator-optimized machine family" (compute/docs/accelerator-optimized-machines) for
// vCPUs, memory (GB), GPUs and the rules that A4X does not support flex-start and that a3-highgpu-1g, -2g and -4g
// must be created as Spot or flex-start VMs; GKE "About GPUs in Autopilot" for the accelerator type strings.
var gpuTypes = map[string]GPUMachineType{}

func addGPU(g GPUMachineType) { gpuTypes[g.Name] = g }

func init() {
	for _, g := range []GPUMachineType{
		{Name: "a2-highgpu-1g", Accelerator: "nvidia-tesla-a100", Count: 1, VCPUs: 12, MemoryGB: 85},
		{Name: "a2-highgpu-2g", Accelerator: "nvidia-tesla-a100", Count: 2, VCPUs: 24, MemoryGB: 170},
		{Name: "a2-highgpu-4g", Accelerator: "nvidia-tesla-a100", Count: 4, VCPUs: 48, MemoryGB: 340},
		{Name: "a2-highgpu-8g", Accelerator: "nvidia-tesla-a100", Count: 8, VCPUs: 96, MemoryGB: 680},
		{Name: "a2-megagpu-16g", Accelerator: "nvidia-tesla-a100", Count: 16, VCPUs: 96, MemoryGB: 1360},
		{Name: "a2-ultragpu-1g", Accelerator: "nvidia-a100-80gb", Count: 1, VCPUs: 12, MemoryGB: 170},
		{Name: "a2-ultragpu-2g", Accelerator: "nvidia-a100-80gb", Count: 2, VCPUs: 24, MemoryGB: 340},
		{Name: "a2-ultragpu-4g", Accelerator: "nvidia-a100-80gb", Count: 4, VCPUs: 48, MemoryGB: 680},
		{Name: "a2-ultragpu-8g", Accelerator: "nvidia-a100-80gb", Count: 8, VCPUs: 96, MemoryGB: 1360},
		{Name: "a3-highgpu-1g", Accelerator: "nvidia-h100-80gb", Count: 1, VCPUs: 26, MemoryGB: 234, NoOnDemand: true},
		{Name: "a3-highgpu-2g", Accelerator: "nvidia-h100-80gb", Count: 2, VCPUs: 52, MemoryGB: 468, NoOnDemand: true},
		{Name: "a3-highgpu-4g", Accelerator: "nvidia-h100-80gb", Count: 4, VCPUs: 104, MemoryGB: 936, NoOnDemand: true},
		{Name: "a3-highgpu-8g", Accelerator: "nvidia-h100-80gb", Count: 8, VCPUs: 208, MemoryGB: 1872},
		{Name: "a3-edgegpu-8g", Accelerator: "nvidia-h100-80gb", Count: 8, VCPUs: 208, MemoryGB: 1872},
		{Name: "a3-megagpu-8g", Accelerator: "nvidia-h100-mega-80gb", Count: 8, VCPUs: 208, MemoryGB: 1872},
		{Name: "a3-ultragpu-8g", Accelerator: "nvidia-h200-141gb", Count: 8, VCPUs: 224, MemoryGB: 2952},
		{Name: "a4-highgpu-8g", Accelerator: "nvidia-b200", Count: 8, VCPUs: 224, MemoryGB: 3968},
		{Name: "a4x-highgpu-4g", Accelerator: "nvidia-gb200", Count: 4, VCPUs: 140, MemoryGB: 884, NoFlexStart: true},
		{Name: "g2-standard-4", Accelerator: "nvidia-l4", Count: 1, VCPUs: 4, MemoryGB: 16},
		{Name: "g2-standard-8", Accelerator: "nvidia-l4", Count: 1, VCPUs: 8, MemoryGB: 32},
		{Name: "g2-standard-12", Accelerator: "nvidia-l4", Count: 1, VCPUs: 12, MemoryGB: 48},
		{Name: "g2-standard-16", Accelerator: "nvidia-l4", Count: 1, VCPUs: 16, MemoryGB: 64},
		{Name: "g2-standard-24", Accelerator: "nvidia-l4", Count: 2, VCPUs: 24, MemoryGB: 96},
		{Name: "g2-standard-32", Accelerator: "nvidia-l4", Count: 1, VCPUs: 32, MemoryGB: 128},
		{Name: "g2-standard-48", Accelerator: "nvidia-l4", Count: 4, VCPUs: 48, MemoryGB: 192},
		{Name: "g2-standard-96", Accelerator: "nvidia-l4", Count: 8, VCPUs: 96, MemoryGB: 384},
	} {
		addGPU(g)
	}
}

// IsGPU reports whether the machine type belongs to a GPU family (accelerator-optimized A and G series), known or not.
func IsGPU(machineType string) bool {
	family, _, _ := strings.Cut(machineType, "-")
	return len(family) >= 2 && (family[0] == 'a' || family[0] == 'g') && family[1] >= '0' && family[1] <= '9'
}

// LookupGPU returns the GPU machine type with that name.
func LookupGPU(name string) (GPUMachineType, bool) {
	g, ok := gpuTypes[name]
	return g, ok
}

// GPUNames lists the known GPU machine types, sorted.
func GPUNames() []string {
	out := make([]string, 0, len(gpuTypes))
	for n := range gpuTypes {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// GPUAccelerators lists the accelerator types of the known GPU machine types, sorted.
func GPUAccelerators() []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range gpuTypes {
		if !seen[g.Accelerator] {
			seen[g.Accelerator] = true
			out = append(out, g.Accelerator)
		}
	}
	sort.Strings(out)
	return out
}
