package gkedrift

import (
	"slices"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/protobuf/proto"
)

// ClusterZeroFields are the fields of the cluster's request that mean something at zero, which proto3 cannot tell
// from unset. An add-on or image streaming turned off is not among them: GKE may leave the message out of a cluster
// that has the feature off, and the ray_operator and image_streaming attributes read those back.
var ClusterZeroFields []string

// Cluster names each field of the live cluster that differs from what the last apply made of it: the cluster's
// as "Cluster/NAME .path", its pools' (the default pool) as "NodePool/NAME .path", or "NodePool/NAME (deleted)" for
// one a repair deleted and did not make again (recreating).
// Pools made by other resources are theirs to compare.
func Cluster(base, live *containerpb.Cluster, recreating []string) []string {
	b, l := WithoutPools(base), WithoutPools(live)
	var out []string
	for _, p := range Diff(b, l, ClusterZeroFields...) {
		out = append(out, "Cluster/"+live.GetName()+" ."+p)
	}
	for _, bp := range base.GetNodePools() {
		// A default pool deleted by hand is not drift: teams that run Ray heads on pools of their own delete it,
		// and the resource's docs say so.
		lp := ClusterPool(live, bp.GetName())
		switch {
		case lp != nil:
			out = append(out, Pools(map[string]*containerpb.NodePool{bp.GetName(): bp}, lp)...)
		case slices.Contains(recreating, bp.GetName()):
			out = append(out, "NodePool/"+bp.GetName()+" (deleted)") // by a repair whose create failed
		}
	}
	return out
}

// WithoutPools is c without its node pools, which Cluster compares one by one.
func WithoutPools(c *containerpb.Cluster) *containerpb.Cluster {
	c, _ = proto.Clone(c).(*containerpb.Cluster)
	c.NodePools = nil
	return c
}

// ClusterPool is the cluster's node pool of that name, nil when it has none.
func ClusterPool(c *containerpb.Cluster, name string) *containerpb.NodePool {
	for _, np := range c.GetNodePools() {
		if np.GetName() == name {
			return np
		}
	}
	return nil
}
