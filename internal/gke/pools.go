package gke

import (
	"context"
	"maps"
	"sync"

	"cloud.google.com/go/container/apiv1/containerpb"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// ListPools reads every pool of the cluster (projects/P/locations/L/clusters/C) in one call, by name. Under a
// context from WithPoolSnapshot, it asks GKE once per cluster and answers again from that answer.
func ListPools(ctx context.Context, client *Client, cluster string) (map[string]*containerpb.NodePool, error) {
	snap, _ := ctx.Value(snapshotKey{}).(*poolSnapshot)
	if pools, ok := snap.get(cluster); ok {
		return pools, nil
	}
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
	snap.put(cluster, out)
	return out, nil
}

// WithPoolSnapshot makes ListPools under ctx read each cluster's pools once. A list resource reads a cluster's pools
// to find its results and again to read each one it includes: one moment's pools serve them all, in one
// ListNodePools per cluster. Nothing that changes pools may run under it.
func WithPoolSnapshot(ctx context.Context) context.Context {
	return context.WithValue(ctx, snapshotKey{}, &poolSnapshot{pools: map[string]map[string]*containerpb.NodePool{}})
}

type snapshotKey struct{}

type poolSnapshot struct {
	mu    sync.Mutex
	pools map[string]map[string]*containerpb.NodePool
}

// get is a copy of the cluster's pools as read, so that a caller's changes to the map stay its own.
func (s *poolSnapshot) get(cluster string) (map[string]*containerpb.NodePool, bool) {
	if s == nil {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pools[cluster]
	return maps.Clone(p), ok
}

func (s *poolSnapshot) put(cluster string, pools map[string]*containerpb.NodePool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pools[cluster] = maps.Clone(pools)
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
