package poolpair

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

func (m *tpuPoolPairModel) validate(diags *diag.Diagnostics) {
	if !tfvalue.Known(m.MachineType) || !tfvalue.Known(m.TPUTopology) || !catalog.IsTPU(m.MachineType.ValueString()) {
		return
	}
	mt, isKnown := catalog.Lookup(m.MachineType.ValueString())
	if _, perr := catalog.ParseTopology(m.TPUTopology.ValueString()); perr != nil {
		return // the topology's own validator says why
	}
	if !isKnown {
		validateUnknownTPU(m, diags)
		return
	}
	for _, d := range []struct {
		attr  string
		set   bool
		match bool
		want  string
	}{
		{"tpu_accelerator", tfvalue.Known(m.TPUAccelerator), m.TPUAccelerator.ValueString() == mt.Accelerator, mt.Accelerator},
		{"chips_per_node", tfvalue.Known(m.ChipsPerNode), m.ChipsPerNode.ValueInt64() == int64(mt.ChipsPerVM), fmt.Sprint(mt.ChipsPerVM)},
	} {
		if d.set && !d.match {
			diags.AddAttributeError(path.Root(d.attr), d.attr+" contradicts the machine type",
				fmt.Sprintf("%s nodes have %s = %s. Leave %s out: it is derived from a machine type the provider knows.", mt.Name, d.attr, d.want, d.attr))
		}
	}
	s, err := catalog.NewSlice(m.MachineType.ValueString(), m.TPUTopology.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("tpu_topology"), "TPU topology does not fit the machine type", err.Error())
		return
	}
	validateSliceBounds(m, s, diags)
	if zones := zonesOf(m.NodeLocations); s.MultiHost() && len(zones) > 1 {
		diags.AddAttributeError(path.Root("node_locations"), "A multi-host slice lives in one zone",
			fmt.Sprintf("node_locations has %d zones, but a %s slice of %s spans %d nodes joined by the chips' interconnect, which GKE creates in one zone "+
				"(GKE's \"Deploy TPU workloads in GKE Standard\": a multi-host slice pool takes one --node-locations zone). Give one zone, or a single-host topology.",
				len(zones), s.Topology, s.MachineType, s.NodesPerSlice))
	}
	if s.MultiHost() && !mt.NeedsWorkloadPolicy {
		// A slice placed by a workload policy (TPU7x) is not compactly placed; what GKE says of it is not on record.
		validateBlueGreenSlice(m.OnDemand, s.Topology, s.NodesPerSlice, diags)
	}
	if !s.MultiHost() && mt.NeedsWorkloadPolicy && !m.PlacementPolicy.IsNull() {
		diags.AddAttributeError(path.Root("placement_policy"), "Single-host "+mt.Accelerator+" slices take no placement policy",
			fmt.Sprintf("GKE refuses a topology or workload policy on a single-host %s pool (%s is one node): leave placement_policy out.", mt.Name, s.Topology))
	}
	if s.MultiHost() && mt.NeedsWorkloadPolicy && m.PlacementPolicy.IsNull() {
		diags.AddAttributeError(path.Root("placement_policy"), "Multi-host "+mt.Accelerator+" slices need a workload policy",
			fmt.Sprintf("GKE places a multi-host %s slice by a workload policy: create one with `gcloud compute resource-policies create workload-policy NAME "+
				"--type=HIGH_THROUGHPUT --accelerator-topology=%s --region=REGION` and set placement_policy = \"NAME\".", mt.Name, s.Topology))
	}
}

// validateUnknownTPU checks what it can of a machine type the provider does not know, and asks for what it cannot
// derive.
func validateUnknownTPU(m *tpuPoolPairModel, diags *diag.Diagnostics) {
	diags.AddAttributeWarning(path.Root("machine_type"), "TPU machine type not known to this provider",
		fmt.Sprintf("This provider cannot check %s against GKE's rules (topologies, slice sizes, placement); GKE's answer at apply decides. "+
			"Known types: %s.", m.MachineType.ValueString(), strings.Join(catalog.Names(), ", ")))
	askFor(m.MachineType.ValueString(), "GKE's TPU docs give it", diags,
		unknownTypeNeed{"tpu_accelerator", !m.TPUAccelerator.IsNull(), "the cloud.google.com/gke-tpu-accelerator label GKE gives its nodes"},
		unknownTypeNeed{"chips_per_node", !m.ChipsPerNode.IsNull(), "the TPU chips of one node (google.com/tpu)"})
	if s, ok := m.slice(); ok {
		validateSliceBounds(m, s, diags)
	} else if tfvalue.Known(m.ChipsPerNode) && tfvalue.Known(m.TPUAccelerator) {
		_, err := catalog.UnknownSlice(m.MachineType.ValueString(), m.TPUAccelerator.ValueString(), m.TPUTopology.ValueString(), int(m.ChipsPerNode.ValueInt64()))
		diags.AddAttributeError(path.Root("tpu_topology"), "TPU topology does not fit the nodes", err.Error())
	}
}

// validateSliceBounds holds the pools to GKE's shape of a multi-host slice pool: one slice, scaled from 0 to the
// whole slice and back (GKE's "About TPUs in GKE"). GKE refuses any other maximum ("Maximum node count N is not a
// valid size of TPU pod slice with topology T", quoted in vllm-project/ci-infra#545); more slices are more pools.
func validateSliceBounds(m *tpuPoolPairModel, s catalog.Slice, diags *diag.Diagnostics) {
	if !s.MultiHost() {
		if tfvalue.Known(m.Slices) && m.Slices.ValueInt64() > 1 {
			diags.AddAttributeError(path.Root("slices"), "slices is for multi-host TPU slices",
				fmt.Sprintf("A %s pool of %s is single-host: each node is a slice of its own, and the pool grows to max_nodes of them. Leave slices out and raise max_nodes instead.",
					s.Topology, s.MachineType))
		}
		return
	}
	n := int64(s.NodesPerSlice)
	if tfvalue.Known(m.MaxNodes) && m.MaxNodes.ValueInt64() != n {
		detail := fmt.Sprintf("A %s slice of %s spans %d nodes, and a multi-host slice pool holds exactly one slice: GKE refuses any other maximum "+
			"(\"Maximum node count %d is not a valid size of TPU pod slice with topology %q\"). Set max_nodes = %d.",
			s.Topology, s.MachineType, n, m.MaxNodes.ValueInt64(), s.Topology, n)
		if k := m.MaxNodes.ValueInt64() / n; k > 1 && m.MaxNodes.ValueInt64()%n == 0 {
			detail += fmt.Sprintf(" For %d slices at once, also set slices = %d: each plan then gets %d pools of one slice, which one Kueue flavor selects through node_labels.", k, k, k)
		}
		diags.AddAttributeError(path.Root("max_nodes"), "A multi-host TPU slice pool holds one slice", detail)
	}
	if tfvalue.Known(m.MinNodes) && m.MinNodes.ValueInt64() != 0 && m.MinNodes.ValueInt64() != n {
		diags.AddAttributeError(path.Root("min_nodes"), "A multi-host TPU slice scales whole",
			fmt.Sprintf("A %s slice of %s spans %d nodes, and GKE scales it from 0 to the whole slice and back: min_nodes must be 0 or %d, not %d.",
				s.Topology, s.MachineType, n, n, m.MinNodes.ValueInt64()))
	}
	if !tfvalue.Known(m.Slices) {
		return
	}
	for _, role := range poolRoles {
		if p, ok := role.decodePool(role.get(m.pair())); ok && tfvalue.Known(p.Name) {
			if why := sliceNameError(p.Name.ValueString(), m.Slices.ValueInt64()); why != "" {
				diags.AddAttributeError(path.Root(role.attr).AtName("name"), "Pool name too long for its slices", why)
			}
		}
	}
}
