package rayjob

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
)

// validateRayJob checks, on the values known so far (unknown ones read as null), what would make the job refused or
// never placed.
func validateRayJob(m *rayJobModel, diags *diag.Diagnostics) {
	known := func(v interface{ IsNull() bool }) bool { return !v.IsNull() }
	if !m.Queue.IsNull() && known(m.Elastic) && !m.Elastic.ValueBool() && known(m.EnableInTreeAutoscaling) && m.EnableInTreeAutoscaling.ValueBool() {
		diags.AddAttributeError(path.Root("enable_in_tree_autoscaling"), "Kueue refuses autoscaling on this job",
			"Kueue's webhook refuses a job it manages that uses Ray's autoscaler unless the job is elastic (\"a kueue managed job should only "+
				"use autoscaling when workload slicing is enabled\"). Set elastic = true (with Kueue's ElasticJobsViaWorkloadSlices gate, as in the "+
				"tutorial), or enable_in_tree_autoscaling = false.")
	}
	if !m.Queue.IsNull() && known(m.ShutdownAfterJobFinishes) && !m.ShutdownAfterJobFinishes.ValueBool() {
		diags.AddAttributeError(path.Root("shutdown_after_job_finishes"), "Kueue refuses jobs that keep their cluster",
			"Kueue's webhook refuses a job it manages that keeps its Ray cluster after finishing (\"a kueue managed job should delete the "+
				"cluster after finishing\"): the cluster would hold the TPU quota forever. Leave shutdown_after_job_finishes true, or drop queue.")
	}
	for k := range m.Files.Elements() {
		if strings.ContainsAny(k, "/\\") || k == "" || k == "." || k == ".." {
			diags.AddAttributeError(path.Root("files").AtMapKey(k), "Invalid file name",
				fmt.Sprintf("%q cannot be a ConfigMap key: use a plain file name such as train.py (letters, digits, '-', '_', '.').", k))
		}
	}
	if g := m.GPUWorkers; g != nil {
		validateGPUWorkers(g, diags)
		validateReplicas(path.Root("gpu_workers"), g.Replicas, g.MinReplicas, g.MaxReplicas, diags)
	}
	w := m.TPUWorkers
	if w == nil {
		return
	}
	p := path.Root("tpu_workers")
	if known(w.Topology) && known(w.ChipsPerNode) {
		if _, err := numOfHosts(w.Topology.ValueString(), w.ChipsPerNode.ValueInt64()); err != nil {
			diags.AddAttributeError(p.AtName("topology"), "Topology does not fit the nodes",
				fmt.Sprintf("%v. Use the pool pair's chips_per_node and tpu_topology, which always fit.", err))
		} else if !w.Accelerator.IsNull() && !w.Accelerator.IsUnknown() && !slices.Contains(catalog.Accelerators(), w.Accelerator.ValueString()) {
			diags.AddAttributeWarning(p.AtName("accelerator"), "TPU accelerator not known to this provider",
				fmt.Sprintf("%q is not an accelerator of a TPU machine type this provider knows (%s), so it cannot check that nodes fit these workers. "+
					"Wire it from the pool pair's tpu_accelerator.", w.Accelerator.ValueString(), strings.Join(catalog.Accelerators(), ", ")))
		} else if msg := checkAccelerator(w.Accelerator, w.ChipsPerNode, w.Topology); msg != "" {
			diags.AddAttributeError(p.AtName("accelerator"), "No TPU nodes fit these workers", msg)
		}
	}
	validateReplicas(p, w.Replicas, w.MinReplicas, w.MaxReplicas, diags)
}

func validateReplicas(p path.Path, replicas, minR, maxR types.Int64, diags *diag.Diagnostics) {
	known := func(v types.Int64) bool { return !v.IsNull() && !v.IsUnknown() }
	if known(minR) && known(maxR) && minR.ValueInt64() > maxR.ValueInt64() {
		diags.AddAttributeError(p.AtName("min_replicas"), "min_replicas above max_replicas",
			fmt.Sprintf("min_replicas (%d) must not exceed max_replicas (%d).", minR.ValueInt64(), maxR.ValueInt64()))
	}
	if known(replicas) && known(maxR) && replicas.ValueInt64() > maxR.ValueInt64() {
		diags.AddAttributeError(p.AtName("replicas"), "replicas above max_replicas",
			fmt.Sprintf("replicas (%d) must lie between min_replicas and max_replicas (%d).", replicas.ValueInt64(), maxR.ValueInt64()))
	}
}

// validateGPUWorkers: a worker pod asking for more GPUs than any node of its GPU type has would pend forever.
func validateGPUWorkers(g *gpuWorkersModel, diags *diag.Diagnostics) {
	p := path.Root("gpu_workers")
	if g.Accelerator.IsNull() || g.Accelerator.IsUnknown() {
		return
	}
	a := g.Accelerator.ValueString()
	most := 0
	for _, n := range catalog.GPUNames() {
		if mt, _ := catalog.LookupGPU(n); mt.Accelerator == a && mt.Count > most {
			most = mt.Count
		}
	}
	if most == 0 {
		diags.AddAttributeWarning(p.AtName("accelerator"), "GPU type not known to this provider",
			fmt.Sprintf("%q is not the GPU of a machine type this provider knows (%s), so it cannot check that nodes fit these workers. Wire it from the pool pair's gpu_type.",
				a, strings.Join(catalog.GPUAccelerators(), ", ")))
		return
	}
	if !g.GPUs.IsNull() && !g.GPUs.IsUnknown() && g.GPUs.ValueInt64() > int64(most) {
		diags.AddAttributeError(p.AtName("gpus"), "No GPU nodes fit these workers",
			fmt.Sprintf("No %s machine type has %d GPUs per node (the most is %d), so the worker pods could never be scheduled. Use the pool pair's gpus_per_node.",
				a, g.GPUs.ValueInt64(), most))
	}
}

// checkAccelerator says why no GKE TPU node could run workers asking for this accelerator, chips per node and
// topology (such a job would stay pending forever), or "" when one can.
func checkAccelerator(accel types.String, chips types.Int64, topology types.String) string {
	if accel.IsNull() || accel.IsUnknown() {
		return ""
	}
	a := accel.ValueString()
	m, ok := catalog.MachineTypeFor(a, int(chips.ValueInt64()))
	if !ok {
		return fmt.Sprintf("No %s machine type has %d chips per node. Use the pool pair's chips_per_node.", a, chips.ValueInt64())
	}
	if _, err := catalog.NewSlice(m.Name, topology.ValueString()); err != nil {
		return fmt.Sprintf("%v. Use the pool pair's tpu_topology.", err)
	}
	return ""
}
