package gke

import (
	"slices"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
)

// Pair is an on-demand node pool and a flex-start (or queued) one of the same shape: a pool pair someone made
// without Terraform.
type Pair struct{ OnDemand, FlexStart string }

// Pairs finds the pool pairs among a cluster's pools that accept takes (a kind's machines). A pool whose VMs are
// flex-start or queued is plan B; one that is neither, nor spot, is plan A; one GKE made itself (auto-provisioned)
// is neither. Both must have the same machine type, slice shape, placement policy and what else group says (a
// ComputeClass). Where one shape has several pools of a plan, they pair in the order of their names, and a pool left
// without a partner is in no pair.
func Pairs(pools map[string]*containerpb.NodePool, accept func(*containerpb.NodePool) bool, group func(*containerpb.NodePool) string) []Pair {
	type shape struct{ machine, topology, policy, group string }
	onDemand, flex := map[shape][]string{}, map[shape][]string{}
	for name, np := range pools {
		if !accept(np) || np.GetAutoscaling().GetAutoprovisioned() {
			continue
		}
		cfg := np.GetConfig()
		s := shape{cfg.GetMachineType(), PoolTopology(np), np.GetPlacementPolicy().GetPolicyName(), group(np)}
		switch {
		case np.GetQueuedProvisioning().GetEnabled() || cfg.GetFlexStart():
			flex[s] = append(flex[s], name)
		case !cfg.GetSpot() && !cfg.GetPreemptible():
			onDemand[s] = append(onDemand[s], name)
		}
	}
	var out []Pair
	for s, plansB := range flex {
		plansA := onDemand[s]
		slices.Sort(plansA)
		slices.Sort(plansB)
		for i := range min(len(plansA), len(plansB)) {
			out = append(out, Pair{OnDemand: plansA[i], FlexStart: plansB[i]})
		}
	}
	slices.SortFunc(out, func(a, b Pair) int {
		if a.OnDemand != b.OnDemand {
			return strings.Compare(a.OnDemand, b.OnDemand)
		}
		return strings.Compare(a.FlexStart, b.FlexStart)
	})
	return out
}
