package computeclass

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// flexStartMaxRun is the longest a flex-start node lives (GKE "About flex-start provisioning mode": up to 7 days).
const flexStartMaxRun = 7 * 24 * 3600

// validateComputeClass checks what GKE's ComputeClass CRD and docs refuse, on what is known (u lists the unknowns).
// The quoted sentences are GKE's own validation messages.
func validateComputeClass(m *computeClassModel, u tfvalue.Unknowns, diags *diag.Diagnostics) {
	if name := m.Name.ValueString(); strings.HasPrefix(name, "gke") || strings.HasPrefix(name, "autopilot") {
		diags.AddAttributeError(path.Root("name"), "Reserved ComputeClass name",
			fmt.Sprintf("GKE refuses ComputeClass names that begin with \"gke\" or \"autopilot\" (About custom compute classes); %q does.", name))
	}
	for i, p := range m.Priorities {
		// A priority's rules relate its fields: with any of them unknown, they are checked once all are known.
		if u.Under("priorities", i) {
			continue
		}
		validatePriority(i, p, diags)
	}
}

func validatePriority(i int, p classPriorityModel, diags *diag.Diagnostics) {
	at := path.Root("priorities").AtListIndex(i)
	fail := func(attr, summary, detail string) {
		diags.AddAttributeError(at.AtName(attr), summary, fmt.Sprintf("priorities[%d]: %s", i, detail))
	}
	set := p.setFields()
	if len(set) == 0 {
		diags.AddAttributeError(at, "Empty priority",
			fmt.Sprintf("priorities[%d] sets nothing: give it nodepools, or describe its nodes (machine_family, machine_type, tpu, gpu, flex_start, spot, ...).", i))
		return
	}
	if !p.Nodepools.IsNull() && len(set) > 1 {
		fail("nodepools", "nodepools with other fields", fmt.Sprintf("GKE: \"Nodepool field cannot be set along with other nodepool "+
			"configuration fields\". A priority names existing pools or describes nodes, not both; this one also sets %s. "+
			"Put the description in a priority of its own.", strings.Join(set[1:], ", ")))
	}
	if !p.MachineFamily.IsNull() && !p.MachineType.IsNull() {
		fail("machine_type", "machine_family with machine_type", "GKE: \"MachineFamily and MachineType cannot be set together\". Keep one.")
	}
	if !p.MachineType.IsNull() && (!p.MinCores.IsNull() || !p.MinMemoryGb.IsNull()) {
		fail("machine_type", "machine_type with min_cores or min_memory_gb",
			"GKE: \"MachineType cannot be set together with MinCores/MinMemoryGb\". A machine type already fixes both.")
	}
	flex := p.FlexStart.ValueBool()
	if flex && p.Spot.ValueBool() {
		fail("flex_start", "flex_start with spot", "GKE: \"Flex Start provisioning model is incompatible with Spot\". Choose one.")
	}
	if flex && p.MaxRunDurationSeconds.ValueInt64() > flexStartMaxRun {
		fail("max_run_duration_seconds", "Longer than flex-start allows",
			fmt.Sprintf("flex-start nodes live at most 7 days (%d seconds); max_run_duration_seconds is %d.", flexStartMaxRun, p.MaxRunDurationSeconds.ValueInt64()))
	}
	t, hasTPU := p.tpu()
	if _, hasGPU := p.gpu(); hasTPU && hasGPU {
		fail("gpu", "tpu with gpu", "a node carries TPUs or GPUs, not both: split them into two priorities.")
	}
	var slice catalog.Slice
	if hasTPU {
		var ok bool
		if slice, ok = tpuSliceOf(t, at, diags); ok && !p.MachineType.IsNull() && p.MachineType.ValueString() != slice.MachineType {
			fail("machine_type", "machine_type does not match tpu",
				fmt.Sprintf("tpu %s with %d chips per node is machine type %s, not %s.", t.Type, t.Count, slice.MachineType, p.MachineType.ValueString()))
		}
	}
	if !p.CapacityCheckWaitTimeSeconds.IsNull() && !flex {
		switch {
		case !hasTPU:
			fail("capacity_check_wait_time_seconds", "capacity_check_wait_time_seconds needs flex-start or a multi-host TPU",
				"GKE: \"capacityCheckWaitTimeSeconds is only supported for Flex Start and for multi-host TPUs\". Set flex_start = true, or describe a multi-host TPU slice in tpu.")
		case slice.ChipsPerNode > 0 && !slice.MultiHost():
			fail("capacity_check_wait_time_seconds", "capacity_check_wait_time_seconds needs flex-start or a multi-host TPU",
				fmt.Sprintf("GKE: \"capacityCheckWaitTimeSeconds is only supported for Flex Start and for multi-host TPUs\"; a %s %s slice is one node.", t.Type, t.Topology))
		}
	}
}

// setFields names the fields a priority sets, nodepools first.
func (p classPriorityModel) setFields() []string {
	var out []string
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"nodepools", !p.Nodepools.IsNull()},
		{"machine_family", !p.MachineFamily.IsNull()},
		{"machine_type", !p.MachineType.IsNull()},
		{"min_cores", !p.MinCores.IsNull()},
		{"min_memory_gb", !p.MinMemoryGb.IsNull()},
		{"spot", !p.Spot.IsNull()},
		{"flex_start", !p.FlexStart.IsNull()},
		{"tpu", !p.TPU.IsNull()},
		{"gpu", !p.GPU.IsNull()},
		{"reservation_affinity", !p.ReservationAffinity.IsNull()},
		{"max_run_duration_seconds", !p.MaxRunDurationSeconds.IsNull()},
		{"capacity_check_wait_time_seconds", !p.CapacityCheckWaitTimeSeconds.IsNull()},
	} {
		if f.set {
			out = append(out, f.name)
		}
	}
	return out
}

// tpuSliceOf checks a priority's tpu block against the catalog: a known accelerator, a chip count one of its machine
// types has per node, and a topology that machine type takes.
func tpuSliceOf(t classTPU, at path.Path, diags *diag.Diagnostics) (catalog.Slice, bool) {
	known := catalog.Accelerators()
	if !slices.Contains(known, t.Type) {
		diags.AddAttributeError(at.AtName("tpu").AtName("type"), "Unknown TPU type",
			fmt.Sprintf("%q is not a TPU accelerator GKE offers; known: %s.", t.Type, strings.Join(known, ", ")))
		return catalog.Slice{}, false
	}
	mt, ok := catalog.MachineTypeFor(t.Type, int(t.Count))
	if !ok {
		diags.AddAttributeError(at.AtName("tpu").AtName("count"), "TPU count does not fit the type",
			fmt.Sprintf("no GKE machine type has %d %s chips per node; tpu.count is the chips of one node (e.g. 4 for ct6e-standard-4t).", t.Count, t.Type))
		return catalog.Slice{}, false
	}
	s, err := catalog.NewSlice(mt.Name, t.Topology)
	if err != nil {
		diags.AddAttributeError(at.AtName("tpu").AtName("topology"), "TPU topology does not fit", err.Error())
		return catalog.Slice{}, false
	}
	return s, true
}
