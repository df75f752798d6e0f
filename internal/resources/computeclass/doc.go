// Package computeclass is the dwsfallback_compute_class resource: a GKE ComputeClass whose priorities name the pool
// pairs' pools, so that GKE's autoscaler falls back from plan A to plan B by capacity. It exports only New.
package computeclass
