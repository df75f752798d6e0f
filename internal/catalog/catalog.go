// Package catalog holds the facts about Cloud TPU hardware on GKE that both the provider's plan-time validation and the
// GKE emulator rely on, so the two can never disagree about what a machine type or topology means.
package catalog

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// MachineType describes one GKE TPU machine type.
type MachineType struct {
	Name string
	// Accelerator is the value GKE puts in the cloud.google.com/gke-tpu-accelerator node label.
	Accelerator string
	// ChipsPerVM is the number of TPU chips attached to one node (the google.com/tpu allocatable).
	ChipsPerVM int
	// Dims is 2 for the 2D-torus generations (v5e, v6e) and 3 for the 3D ones (v4, v5p).
	Dims int
	// Topologies lists the slice shapes GKE accepts for this machine type. Empty means any shape of Dims dimensions
	// whose chip count is a multiple of ChipsPerVM (the 3D generations).
	Topologies []string
	// LargeTopologies, when set, accepts shapes beyond Topologies: TPU7x takes larger slices whose sides are
	// multiples of 4 in non-decreasing order.
	LargeTopologies func(dims []int) bool
	// NeedsWorkloadPolicy: GKE places multi-host slices of this type by a Compute Engine workload policy
	// (--placement-policy), and refuses a topology on a single-host pool.
	NeedsWorkloadPolicy bool
}

var machineTypes = map[string]MachineType{}

func add(m MachineType) { machineTypes[m.Name] = m }

func init() {
	multiHost2D := []string{"2x2", "2x4", "4x4", "4x8", "8x8", "8x16", "16x16"}
	for _, g := range []struct{ prefix, accel string }{
		{"ct6e-standard-", "tpu-v6e-slice"},
		{"ct5lp-hightpu-", "tpu-v5-lite-podslice"},
	} {
		add(MachineType{Name: g.prefix + "1t", Accelerator: g.accel, ChipsPerVM: 1, Dims: 2, Topologies: []string{"1x1"}})
		add(MachineType{Name: g.prefix + "4t", Accelerator: g.accel, ChipsPerVM: 4, Dims: 2, Topologies: multiHost2D})
		add(MachineType{Name: g.prefix + "8t", Accelerator: g.accel, ChipsPerVM: 8, Dims: 2, Topologies: []string{"2x4"}})
	}
	add(MachineType{Name: "ct5p-hightpu-4t", Accelerator: "tpu-v5p-slice", ChipsPerVM: 4, Dims: 3})
	// TPU7x (Ironwood). Sources: GKE "About Ironwood (TPU7x) in GKE" (concepts/tpu-ironwood): four chips per VM, the
	// workload policy that replaces --tpu-topology for multi-host slices; GKE "Use dynamic slicing" for the machine
	// type tpu7x-standard-4t and the sub-slice shapes 2x2x1, 2x2x2, 2x2x4, 2x4x4, 4x4x4 and the rule for larger ones
	// (each side a multiple of 4, non-decreasing). The accelerator label value tpu7x is not in a GKE page we could
	// read; it comes from Google's XPK and Cluster Toolkit.
	add(MachineType{Name: "tpu7x-standard-4t", Accelerator: "tpu7x", ChipsPerVM: 4, Dims: 3, NeedsWorkloadPolicy: true,
		Topologies: []string{"2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4"}, LargeTopologies: sidesOfFour})
	add(MachineType{Name: "ct4p-hightpu-4t", Accelerator: "tpu-v4-podslice", ChipsPerVM: 4, Dims: 3})
}

// IsTPU reports whether the machine type name belongs to the TPU families (ct* up to v6e, tpu* from TPU7x), known
// or not.
func IsTPU(machineType string) bool {
	return strings.HasPrefix(machineType, "ct") || strings.HasPrefix(machineType, "tpu")
}

func sidesOfFour(dims []int) bool {
	for i, d := range dims {
		if d%4 != 0 || (i > 0 && d < dims[i-1]) {
			return false
		}
	}
	return true
}

// SingleHostTopology is the topology of a single-host slice of a machine type that GKE refuses a topology for
// (TPU7x): a pool without one is that slice.
func (m MachineType) SingleHostTopology() string {
	if !m.NeedsWorkloadPolicy {
		return ""
	}
	for _, t := range m.Topologies {
		if s, err := NewSlice(m.Name, t); err == nil && !s.MultiHost() {
			return t
		}
	}
	return ""
}

// Lookup returns the TPU machine type with that name.
func Lookup(name string) (MachineType, bool) {
	m, ok := machineTypes[name]
	return m, ok
}

// Names lists the known TPU machine types, sorted.
func Names() []string {
	out := make([]string, 0, len(machineTypes))
	for n := range machineTypes {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ParseTopology parses "4x4" or "2x2x4" into its dimensions.
func ParseTopology(s string) ([]int, error) {
	parts := strings.Split(s, "x")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, fmt.Errorf("topology %q must look like AxB (v5e, v6e) or AxBxC (v4, v5p), e.g. 4x4", s)
	}
	dims := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || strconv.Itoa(n) != p {
			return nil, fmt.Errorf("topology %q must look like AxB (v5e, v6e) or AxBxC (v4, v5p) with positive whole numbers, e.g. 4x4", s)
		}
		dims[i] = n
	}
	return dims, nil
}

// Slice is what one TPU slice of a machine type and topology is made of.
type Slice struct {
	MachineType   string
	Accelerator   string
	Topology      string
	ChipsPerNode  int
	NodesPerSlice int
	ChipsPerSlice int
}

// MultiHost reports whether the slice spans more than one node, which makes GKE treat its nodes as one atomic unit.
func (s Slice) MultiHost() bool { return s.NodesPerSlice > 1 }

// NewSlice checks that topology fits machineType and returns the slice it describes.
func NewSlice(machineType, topology string) (Slice, error) {
	m, ok := Lookup(machineType)
	if !ok {
		return Slice{}, fmt.Errorf("unknown TPU machine type %q; known types: %s", machineType, strings.Join(Names(), ", "))
	}
	dims, err := ParseTopology(topology)
	if err != nil {
		return Slice{}, err
	}
	if len(dims) != m.Dims {
		return Slice{}, fmt.Errorf("topology %q has %d dimensions, but %s (%s) takes %d-dimensional topologies such as %s",
			topology, len(dims), machineType, m.Accelerator, m.Dims, example(m))
	}
	chips := 1
	for _, d := range dims {
		chips *= d
	}
	if len(m.Topologies) > 0 && !contains(m.Topologies, topology) && (m.LargeTopologies == nil || !m.LargeTopologies(dims)) {
		also := ""
		if m.LargeTopologies != nil {
			also = ", or larger shapes whose sides are multiples of 4 in non-decreasing order (4x4x8, 4x8x8, ...)"
		}
		return Slice{}, fmt.Errorf("topology %q does not fit machine type %s; it supports %s%s",
			topology, machineType, strings.Join(m.Topologies, ", "), also)
	}
	if chips%m.ChipsPerVM != 0 {
		return Slice{}, fmt.Errorf("topology %q has %d chips, not a multiple of the %d chips of one %s node",
			topology, chips, m.ChipsPerVM, machineType)
	}
	return Slice{
		MachineType:   machineType,
		Accelerator:   m.Accelerator,
		Topology:      topology,
		ChipsPerNode:  m.ChipsPerVM,
		NodesPerSlice: chips / m.ChipsPerVM,
		ChipsPerSlice: chips,
	}, nil
}

func example(m MachineType) string {
	if len(m.Topologies) > 0 {
		return m.Topologies[len(m.Topologies)/2]
	}
	return "2x2x2"
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Accelerators lists the cloud.google.com/gke-tpu-accelerator values of the known machine types, sorted.
func Accelerators() []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range machineTypes {
		if !seen[m.Accelerator] {
			seen[m.Accelerator] = true
			out = append(out, m.Accelerator)
		}
	}
	sort.Strings(out)
	return out
}

// MachineTypeFor returns the machine type whose nodes carry this accelerator with chipsPerNode chips, the one a
// workload asking for that accelerator and that many google.com/tpu per pod lands on.
func MachineTypeFor(accelerator string, chipsPerNode int) (MachineType, bool) {
	for _, n := range Names() {
		m := machineTypes[n]
		if m.Accelerator == accelerator && m.ChipsPerVM == chipsPerNode {
			return m, true
		}
	}
	return MachineType{}, false
}

// UnknownSlice is the slice of a machine type the catalog does not know, from what the user says of its nodes: only
// the arithmetic is checked, GKE decides the rest.
func UnknownSlice(machineType, accelerator, topology string, chipsPerNode int) (Slice, error) {
	dims, err := ParseTopology(topology)
	if err != nil {
		return Slice{}, err
	}
	chips := 1
	for _, d := range dims {
		chips *= d
	}
	if chipsPerNode < 1 || chips%chipsPerNode != 0 {
		return Slice{}, fmt.Errorf("topology %q has %d chips, not a whole number of %d-chip nodes", topology, chips, chipsPerNode)
	}
	return Slice{MachineType: machineType, Accelerator: accelerator, Topology: topology, ChipsPerNode: chipsPerNode,
		NodesPerSlice: chips / chipsPerNode, ChipsPerSlice: chips}, nil
}
