package poolpair

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkedrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// createSlicePool creates the pool name of role's plan, a further slice of the pool p describes: its settings, its
// own name.
func (r *poolPairResource[M, P]) createSlicePool(ctx context.Context, client *gke.Client, ref clusterscope.Ref, role poolRole, p poolModel, m pairModel, name string, diags *diag.Diagnostics) (*containerpb.NodePool, error) {
	p.Name = types.StringValue(name)
	np, _, err := r.createPool(ctx, client, ref, role, p, m, func(*containerpb.NodePool) {}, diags)
	return np, err
}

// updateSlicePools makes role's further slices what the plan says, after its first pool is: each pool the plan
// keeps is kept unless it must be made again (a setting only a new pool takes, a name, ERROR, or drift the plan
// named), missing ones are made, and those of oldBase the plan no longer has are deleted. pools follows the changes.
func (r *poolPairResource[M, P]) updateSlicePools(ctx context.Context, client *gke.Client, ref clusterscope.Ref, role poolRole, want poolModel, oldBase string, pools map[string]*containerpb.NodePool, planned map[string][]string, m pairModel, diags *diag.Diagnostics) error {
	base := want.Name.ValueString()
	keep := slicePoolNames(base, m.slices())[1:]
	for _, name := range sliceMembers(pools, oldBase) {
		if oldBase == base && slices.Contains(keep, name) {
			continue
		}
		if err := gke.DeletePool(ctx, client, ref.String(), name); err != nil && !gke.IsNotFound(err) {
			return fmt.Errorf("deleting node pool %s: %w", name, err)
		}
		delete(pools, name)
	}
	for _, name := range keep {
		extra := want
		extra.Name = types.StringValue(name)
		if have := pools[name]; have != nil {
			ours := have.GetConfig().GetLabels()[wellknown.SliceGroupLabel] == base
			if ours && !needsReplacement(role, have, extra) && len(gkedrift.Recreated(gkedrift.Made(expandNodePool(role, extra, m)), have, planned)) == 0 {
				continue
			}
			if ours {
				if err := gke.DeletePool(ctx, client, ref.String(), name); err != nil && !gke.IsNotFound(err) {
					return fmt.Errorf("deleting node pool %s to replace it: %w", name, err)
				}
				delete(pools, name)
			}
		}
		// An adopted pool left as it is warns, as the first pool's adoption does.
		np, err := r.createSlicePool(ctx, client, ref, role, want, m, name, diags)
		if err != nil {
			return fmt.Errorf("creating node pool %s: %w", name, err)
		}
		pools[name] = np
	}
	return nil
}

// wantedPools are what the pair's apply makes of each pool of role's plan, as GKE makes them: the first, then the
// further slices'.
func wantedPools(role poolRole, m pairModel) []*containerpb.NodePool {
	first, ok := wantedPool(role, m)
	if !ok {
		return nil
	}
	out := []*containerpb.NodePool{first}
	for _, name := range slicePoolNames(first.GetName(), m.slices())[1:] {
		p, _ := role.decodePool(role.get(m.pair()))
		p.Name = types.StringValue(name)
		out = append(out, gkedrift.Made(expandNodePool(role, p, m)))
	}
	return out
}

// warnFewerSlices says which pools the apply deletes when a plan keeps its first pool and has fewer slices.
func warnFewerSlices(prior, plan *poolPairModel, priorSlices int64, m pairModel, diags *diag.Diagnostics) {
	if m.slicesValue().IsUnknown() || m.slices() >= priorSlices {
		return
	}
	var gone []string
	for _, role := range poolRoles {
		old, hadOld := role.decodePool(role.get(prior))
		p, ok := role.decodePool(role.get(plan))
		if hadOld && ok && old.Name.Equal(p.Name) {
			gone = append(gone, slicePoolNames(old.Name.ValueString(), priorSlices)[m.slices():]...)
		}
	}
	if len(gone) > 0 {
		diags.AddWarning("Node pools will be deleted", fmt.Sprintf("slices goes from %d to %d: the apply deletes node pools %s, and the jobs on their nodes lose them.",
			priorSlices, m.slices(), strings.Join(gone, ", ")))
	}
}
