package provider

import (
	"context"
	"fmt"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
)

// listPools reads every pool of the cluster in one call, by name.
func listPools(ctx context.Context, client *gke.Client, ref clusterRef) (map[string]*containerpb.NodePool, error) {
	resp, err := gke.Read(ctx, client, func(ctx context.Context) (*containerpb.ListNodePoolsResponse, error) {
		return client.API().ListNodePools(ctx, &containerpb.ListNodePoolsRequest{Parent: ref.String()})
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]*containerpb.NodePool, len(resp.GetNodePools()))
	for _, np := range resp.GetNodePools() {
		out[np.GetName()] = np
	}
	return out, nil
}

func findPool(ctx context.Context, client *gke.Client, name string) (*containerpb.NodePool, error) {
	return gke.Read(ctx, client, func(ctx context.Context) (*containerpb.NodePool, error) {
		return client.API().GetNodePool(ctx, &containerpb.GetNodePoolRequest{Name: name})
	})
}

func deletePool(ctx context.Context, client *gke.Client, ref clusterRef, pool string) error {
	err := client.Mutate(ctx, ref.String(), func(ctx context.Context) (*containerpb.Operation, error) {
		return client.API().DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: ref.String() + "/nodePools/" + pool})
	}, nil)
	if gke.IsNotFound(err) {
		return nil
	}
	return err
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

func timeoutsNull() timeouts.Value {
	return timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
		"create": types.StringType, "update": types.StringType, "delete": types.StringType,
	})}
}

func rayJobTimeoutsNull() timeouts.Value {
	return timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "delete": types.StringType})}
}
