package poolpair

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// A multi-host TPU slice pool holds one slice (GKE's "About TPUs in GKE": no node can be added to it; another slice
// takes another node pool), so a plan of several slices is several pools, as xpk's --num-slices makes them. The
// first keeps the plan's name, so that a pair of one slice is the tutorial's pools exactly; the others are NAME-2 to
// NAME-N, and when there are several, each carries wellknown.SliceGroupLabel=NAME for one Kueue flavor to select.

// slicePoolNames are the pools of a plan whose first pool is base, with n slices.
func slicePoolNames(base string, n int64) []string {
	names := []string{base}
	for i := int64(2); i <= n; i++ {
		names = append(names, extraPoolName(base, i))
	}
	return names
}

func extraPoolName(base string, i int64) string { return base + "-" + strconv.FormatInt(i, 10) }

// maxPoolName is GKE's limit on a node pool's name (validators.GKEName).
const maxPoolName = 40

// sliceNameError says why base cannot name a plan of n slices, or "".
func sliceNameError(base string, n int64) string {
	if n < 2 {
		return ""
	}
	if last := extraPoolName(base, n); len(last) > maxPoolName {
		return fmt.Sprintf("With %d slices the plan's last pool is %s, %d characters; GKE takes at most %d. Shorten the name to %d characters or fewer.",
			n, last, len(last), maxPoolName, maxPoolName-len(last)+len(base))
	}
	return ""
}

// sliceMembers are the further pools of the plan whose first pool is base that the cluster has, in slice order:
// pools named base-I that carry base's slice-group label. A pool of that name without the label is someone else's.
func sliceMembers(pools map[string]*containerpb.NodePool, base string) []string {
	type member struct {
		i    int64
		name string
	}
	var found []member
	for name, np := range pools {
		rest, ok := strings.CutPrefix(name, base+"-")
		i, err := strconv.ParseInt(rest, 10, 64)
		if !ok || err != nil || i < 2 || extraPoolName(base, i) != name || np.GetConfig().GetLabels()[wellknown.SliceGroupLabel] != base {
			continue
		}
		found = append(found, member{i, name})
	}
	slices.SortFunc(found, func(a, b member) int { return int(a.i - b.i) })
	out := make([]string, len(found))
	for k, m := range found {
		out[k] = m.name
	}
	return out
}

// liveSlices is how many slices a plan whose first pool is base has now: the first pool and the further ones that
// follow it without a gap and are not in ERROR (the next apply makes that one again).
func liveSlices(pools map[string]*containerpb.NodePool, base string) int64 {
	if pools[base] == nil {
		return 0
	}
	n := int64(1)
	for {
		np := pools[extraPoolName(base, n+1)]
		if np == nil || np.GetConfig().GetLabels()[wellknown.SliceGroupLabel] != base || np.GetStatus() == containerpb.NodePool_ERROR {
			return n
		}
		n++
	}
}

// withSliceGroup labels a pool of a plan of several slices with the plan's group.
func withSliceGroup(np *containerpb.NodePool, base string, n int64) {
	if n < 2 {
		return
	}
	if np.Config.Labels == nil {
		np.Config.Labels = map[string]string{}
	}
	np.Config.Labels[wellknown.SliceGroupLabel] = base
}

// planPools are the live pools of a plan whose first pool is base, with n slices, in slice order; a missing one is
// left out.
func planPools(pools map[string]*containerpb.NodePool, base string, n int64) []*containerpb.NodePool {
	var out []*containerpb.NodePool
	for _, name := range slicePoolNames(base, n) {
		if np := pools[name]; np != nil {
			out = append(out, np)
		}
	}
	return out
}
