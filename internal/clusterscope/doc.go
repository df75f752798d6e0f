// Package clusterscope is what every resource that lives on one cluster shares: the cluster, project and location
// attributes, the rule that a new spelling of the same cluster (its id from dwsfallback_cluster, or its bare name)
// replaces nothing, their resolution at plan time, and the cluster part of the import id. It is one package so that
// no resource can drift from the others: a resource that replaced itself on a re-spelling destroyed jobs and Kueue.
//
// Clients is what resources get from the provider to reach GKE and each cluster's Kubernetes.
package clusterscope
