package poolpair

import (
	"context"
	"fmt"
	"maps"

	"cloud.google.com/go/container/apiv1/containerpb"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkedrift"
)

func findPool(ctx context.Context, client *gke.Client, name string) (*containerpb.NodePool, error) {
	return gke.Read(ctx, client, func(ctx context.Context) (*containerpb.NodePool, error) {
		return client.API().GetNodePool(ctx, &containerpb.GetNodePoolRequest{Name: name})
	})
}

// waitPoolSettled waits until an adopted pool has left PROVISIONING (its creation, by someone else, is still running).
func waitPoolSettled(ctx context.Context, client *gke.Client, name string, np *containerpb.NodePool) (*containerpb.NodePool, error) {
	for np.GetStatus() == containerpb.NodePool_PROVISIONING || np.GetStatus() == containerpb.NodePool_RECONCILING {
		if err := client.Pause(ctx); err != nil {
			return nil, fmt.Errorf("waiting for node pool %s to finish %s: %w", name, np.GetStatus(), err)
		}
		var err error
		if np, err = findPool(ctx, client, name); err != nil {
			return nil, err
		}
	}
	if np.GetStatus() == containerpb.NodePool_ERROR {
		return np, fmt.Errorf("node pool %s is in ERROR: %s", name, np.GetStatusMessage())
	}
	return np, nil
}

// adopt sets on an adopted pool what GKE changes in place and the configuration says otherwise (lifecycle, labels,
// disk, ...), so that the pool is what the plan said. A change GKE refuses is a warning, not an error: an error would
// taint the pair, and the next apply would delete a pool that someone else made and may be using. asIs then says that
// the pool still differs from the plan; the next plan shows how, and the next apply sets it.
func adopt(ctx context.Context, client *gke.Client, ref clusterscope.Ref, name string, want, have *containerpb.NodePool, diags *diag.Diagnostics) (*containerpb.NodePool, bool, error) {
	asIs := false
	calls := gkedrift.InPlaceRepairs(client, name, gkedrift.Made(want), have)
	for _, call := range calls {
		if err := client.Mutate(ctx, ref.String(), call, nil); err != nil {
			if ctx.Err() != nil {
				return have, false, fmt.Errorf("adopting node pool %s: %w", have.GetName(), err)
			}
			diags.AddWarning(fmt.Sprintf("Node pool %s adopted as it is", have.GetName()),
				fmt.Sprintf("The node pool already existed and has this pool's defining settings, so it was adopted, but setting the rest of the configuration on it failed: %v. The next plan shows what still differs, and the next apply sets it.", err))
			asIs = true
			break
		}
	}
	if len(calls) == 0 {
		return have, false, nil
	}
	np, err := findPool(ctx, client, name)
	switch {
	case err == nil && np != nil:
		return np, asIs, nil
	case ctx.Err() != nil:
		return have, false, fmt.Errorf("reading adopted node pool %s: %w", have.GetName(), err)
	}
	// The pool as it was before the repairs is not what state should say: state says what was planned.
	return have, true, nil
}

// plannedOr is the planned pool object with what the plan could not know taken from live.
func plannedOr(planned, live types.Object) types.Object {
	if planned.IsNull() || planned.IsUnknown() {
		return live
	}
	attrs := maps.Clone(planned.Attributes())
	for k, v := range attrs {
		if v.IsUnknown() {
			attrs[k] = live.Attributes()[k]
		}
	}
	return types.ObjectValueMust(planned.AttributeTypes(context.Background()), attrs)
}

// connect resolves the cluster and the client for a CRUD call.
func (r *poolPairResource[M, P]) connect(ctx context.Context, m *poolPairModel, diags *diag.Diagnostics) (*gke.Client, clusterscope.Ref, bool) {
	return clusterscope.GKE(ctx, r.clients, m.Cluster, m.Project, m.Location, path.Root("cluster"), diags)
}

// createPool creates one pool and waits for it. A pool of that name that already exists (left by an interrupted
// apply, or made by hand) is adopted when it has this pool's defining settings, and refused otherwise.
func (r *poolPairResource[M, P]) createPool(ctx context.Context, client *gke.Client, ref clusterscope.Ref, role poolRole, p poolModel, m pairModel, started func(*containerpb.NodePool), diags *diag.Diagnostics) (*containerpb.NodePool, bool, error) {
	want := expandNodePool(role, p, m)
	name := ref.String() + "/nodePools/" + want.GetName()
	err := client.Mutate(ctx, ref.String(), func(ctx context.Context) (*containerpb.Operation, error) {
		return client.API().CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: ref.String(), NodePool: want})
	}, func(*containerpb.Operation) {
		started(&containerpb.NodePool{Name: want.GetName(), Status: containerpb.NodePool_PROVISIONING, Config: want.Config, QueuedProvisioning: want.QueuedProvisioning,
			Management: want.Management, UpgradeSettings: want.UpgradeSettings})
	})
	if gke.IsAlreadyExists(err) {
		existing, gerr := findPool(ctx, client, name)
		if gerr != nil {
			return nil, false, fmt.Errorf("%w; reading the existing pool: %w", err, gerr)
		}
		if why := incompatible(role, m, existing, want); why != "" {
			return nil, false, fmt.Errorf("node pool %s already exists but %s; delete it or give this pool another name", want.GetName(), why)
		}
		tflog.Info(ctx, "adopting existing node pool", map[string]any{"pool": name})
		started(existing)
		settled, err := waitPoolSettled(ctx, client, name, existing)
		if err != nil {
			return settled, false, err
		}
		return adopt(ctx, client, ref, name, want, settled, diags)
	}
	if err != nil {
		// The pool may exist in ERROR (a stockout): report it as such in state rather than as created and healthy.
		if np, gerr := findPool(ctx, client, name); gerr == nil {
			started(np)
		}
		return nil, false, err
	}
	np, err := findPool(ctx, client, name)
	return np, false, err
}

// refresh re-reads both pools into st after a change.
func (r *poolPairResource[M, P]) refresh(ctx context.Context, client *gke.Client, ref clusterscope.Ref, st pairModel, diags *diag.Diagnostics) {
	_, onDemand, flex, err := splitPoolPairID(st.pair().ID.ValueString())
	if err != nil {
		diags.AddError(fmt.Sprintf("reading %s pool pair", r.kind.noun), err.Error())
		return
	}
	pools, err := gke.ListPools(ctx, client, ref.String())
	if err != nil {
		diags.AddError(fmt.Sprintf("reading node pools of cluster (%s)", ref), err.Error())
		return
	}
	flattenPair(st, ref, pools[onDemand], pools[flex], false)
}
