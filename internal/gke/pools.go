package gke

import (
	"context"

	"cloud.google.com/go/container/apiv1/containerpb"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// ListPools reads every pool of the cluster (projects/P/locations/L/clusters/C) in one call, by name.
func ListPools(ctx context.Context, client *Client, cluster string) (map[string]*containerpb.NodePool, error) {
	resp, err := Read(ctx, client, func(ctx context.Context) (*containerpb.ListNodePoolsResponse, error) {
		return client.API().ListNodePools(ctx, &containerpb.ListNodePoolsRequest{Parent: cluster})
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

// FindCluster reads the cluster (projects/P/locations/L/clusters/C).
func FindCluster(ctx context.Context, client *Client, cluster string) (*containerpb.Cluster, error) {
	return Read(ctx, client, func(ctx context.Context) (*containerpb.Cluster, error) {
		return client.API().GetCluster(ctx, &containerpb.GetClusterRequest{Name: cluster})
	})
}

// HasClassTaint reports whether the pool carries the ComputeClass taint GKE puts on a pool made for the class.
func HasClassTaint(np *containerpb.NodePool, class string) bool {
	for _, t := range np.GetConfig().GetTaints() {
		if t.Key == wellknown.ComputeClassLabel && t.Value == class && t.Effect == containerpb.NodeTaint_NO_SCHEDULE {
			return true
		}
	}
	return false
}

// PoolTopology is the slice shape of a TPU pool: its topology, or for a single-host TPU7x pool, which has none, the
// shape of its one node.
func PoolTopology(np *containerpb.NodePool) string {
	if t := np.GetPlacementPolicy().GetTpuTopology(); t != "" {
		return t
	}
	mt, _ := catalog.Lookup(np.GetConfig().GetMachineType())
	return mt.SingleHostTopology()
}

// ClassTaint is the taint GKE asks of a manually created pool that a ComputeClass uses.
func ClassTaint(class string) *containerpb.NodeTaint {
	return &containerpb.NodeTaint{Key: wellknown.ComputeClassLabel, Value: class, Effect: containerpb.NodeTaint_NO_SCHEDULE}
}

// DeletePool deletes the cluster's (projects/P/locations/L/clusters/C) node pool and waits for it; one already gone
// is no error.
func DeletePool(ctx context.Context, client *Client, cluster, pool string) error {
	err := client.Mutate(ctx, cluster, func(ctx context.Context) (*containerpb.Operation, error) {
		return client.API().DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: cluster + "/nodePools/" + pool})
	}, nil)
	if IsNotFound(err) {
		return nil
	}
	return err
}
