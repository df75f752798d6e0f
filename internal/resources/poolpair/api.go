package poolpair

import (
	"context"
	"fmt"

	"cloud.google.com/go/container/apiv1/containerpb"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
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
// disk, ...), so that the pool is what the plan said.
func adopt(ctx context.Context, client *gke.Client, ref clusterscope.Ref, name string, want, have *containerpb.NodePool) (*containerpb.NodePool, error) {
	calls := gkedrift.InPlaceRepairs(client, name, gkedrift.Made(want), have)
	for _, call := range calls {
		if err := client.Mutate(ctx, ref.String(), call, nil); err != nil {
			return have, fmt.Errorf("adopting node pool %s: %w", have.GetName(), err)
		}
	}
	if len(calls) == 0 {
		return have, nil
	}
	return findPool(ctx, client, name)
}

// connect resolves the cluster and the client for a CRUD call.
func (r *poolPairResource[M, P]) connect(ctx context.Context, m *poolPairModel, diags *diag.Diagnostics) (*gke.Client, clusterscope.Ref, bool) {
	return clusterscope.GKE(ctx, r.clients, m.Cluster, m.Project, m.Location, path.Root("cluster"), diags)
}

// createPool creates one pool and waits for it. A pool of that name that already exists (left by an interrupted
// apply, or made by hand) is adopted when it has this pool's defining settings, and refused otherwise.
func (r *poolPairResource[M, P]) createPool(ctx context.Context, client *gke.Client, ref clusterscope.Ref, role poolRole, p poolModel, m pairModel, started func(*containerpb.NodePool)) (*containerpb.NodePool, error) {
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
			return nil, fmt.Errorf("%w; reading the existing pool: %w", err, gerr)
		}
		if why := incompatible(role, m, existing, want); why != "" {
			return nil, fmt.Errorf("node pool %s already exists but %s; delete it or give this pool another name", want.GetName(), why)
		}
		tflog.Info(ctx, "adopting existing node pool", map[string]any{"pool": name})
		started(existing)
		settled, err := waitPoolSettled(ctx, client, name, existing)
		if err != nil {
			return settled, err
		}
		return adopt(ctx, client, ref, name, want, settled)
	}
	if err != nil {
		// The pool may exist in ERROR (a stockout): report it as such in state rather than as created and healthy.
		if np, gerr := findPool(ctx, client, name); gerr == nil {
			started(np)
		}
		return nil, err
	}
	return findPool(ctx, client, name)
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
