// Package cluster is the dwsfallback_cluster resource: a GKE cluster as the tutorial makes it (the RayOperator
// add-on, image streaming, a supported version), with drift of its default pools. It exports only New.
package cluster
