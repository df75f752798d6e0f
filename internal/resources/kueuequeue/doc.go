// Package kueuequeue is the dwsfallback_kueue_queue resource: the tutorial's Kueue objects as one queue (a
// ClusterQueue with its ResourceFlavors, AdmissionChecks, ProvisioningRequestConfigs and LocalQueues), sharing
// flavors and checks with other queues as Kueue allows. It exports only New.
package kueuequeue
