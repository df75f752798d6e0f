// Package gkeclass is GKE's ComputeClass as a cluster serves it: its API, reading one, and what its status says.
// The ComputeClass resource writes classes; the RayJob reads one to explain where its pods wait.
package gkeclass
