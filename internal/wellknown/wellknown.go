// Package wellknown names the labels, annotations, taints, extended resources and controller names that GKE, Kueue and
// KubeRay define, so that the provider, the drift oracle and the GKE emulator spell each one way. It imports no
// Kubernetes package: the emulator uses it too, and needs none of Kueue's types. The test checks Kueue's names against Kueue's own
// constants.
package wellknown

import "strings"

// Node labels, taints and resources of GKE's nodes. Sources: GKE "About TPUs in GKE" (concepts/tpus) and "Deploy TPU
// workloads in GKE Standard" (how-to/tpus) for the TPU labels and the google.com/tpu=present taint; "Run a large-scale
// workload with flex-start with queued provisioning" (how-to/provisioningrequest) for cloud.google.com/gke-queued=true
// and cloud.google.com/gke-flex-start=true; "About GPUs in GKE" and "Run GPUs in GKE Standard node pools" for the
// cloud.google.com/gke-accelerator label, the nvidia.com/gpu resource and the nvidia.com/gpu=present:NoSchedule
// taint; GKE Autopilot's GPU page for gke-accelerator-count; "About custom ComputeClasses" for
// cloud.google.com/compute-class and gke-gpu-driver-version. cloud.google.com/gke-gpu=true is seen on GKE GPU nodes in
// public node dumps, not on a GKE page.
const (
	NodePoolLabel       = "cloud.google.com/gke-nodepool"
	TPUAcceleratorLabel = "cloud.google.com/gke-tpu-accelerator"
	TPUTopologyLabel    = "cloud.google.com/gke-tpu-topology"
	GPUAcceleratorLabel = "cloud.google.com/gke-accelerator"
	GPUCountLabel       = "cloud.google.com/gke-accelerator-count"
	GPUDriverLabel      = "cloud.google.com/gke-gpu-driver-version"
	GPULabel            = "cloud.google.com/gke-gpu"
	FlexStartLabel      = "cloud.google.com/gke-flex-start"
	// QueuedLabel and QueuedTaint are on nodes of a queued-provisioning (DWS) pool: pods need the toleration.
	QueuedLabel = "cloud.google.com/gke-queued"
	QueuedTaint = "cloud.google.com/gke-queued"
	// ComputeClassLabel selects a ComputeClass in a pod's nodeSelector and marks the nodes of the pools that joined
	// it; such pools also carry the taint ComputeClassLabel=NAME:NoSchedule.
	ComputeClassLabel = "cloud.google.com/compute-class"
	// SliceGroupLabel is this provider's own node label (not GKE's) on every pool of one plan of a TPU pool pair
	// with several slices: a multi-host slice pool holds one slice, so N slices are N pools, and one Kueue flavor
	// selects all of them by this label, its value the plan's first pool's name.
	SliceGroupLabel = "dwsfallback/slice-group"
	// TPUResource is a TPU node's extended resource, one per chip, and the key of its taint.
	TPUResource = "google.com/tpu"
	// GPUResource is a GPU node's extended resource and the key of its taint.
	GPUResource = "nvidia.com/gpu"
	// ProvisioningModelLabel is the resource label (a Compute Engine label, config.resourceLabels) GKE adds to every
	// node pool it creates (GKE docs, creating-managing-labels, "Automatically applied labels"): "on-demand" for on-demand
	// and queued-provisioning pools (GKE's answers recorded in Config Connector's node pool traffic), "flex-start" and
	// "spot" (users' copies of live pools; no Google record of these two was found).
	ProvisioningModelLabel = "goog-gke-node-pool-provisioning-model"
	// AcceleratorTypeLabel and TPUPoolTypeLabel are the other resource labels GKE adds to accelerator node pools (the
	// same doc): the accelerator ("nvidia-l4", "tpu7x") and, for a multi-host TPU slice, "multi-host" (users' copies
	// of live pools).
	AcceleratorTypeLabel = "goog-gke-accelerator-type"
	TPUPoolTypeLabel     = "goog-gke-tpu-node-pool-type"
)

// Kueue's names (Kueue v0.17: pkg/controller/constants, pkg/constants, the v1beta2 API, pkg/workloadslicing).
const (
	// QueueNameLabel puts a job in a LocalQueue.
	QueueNameLabel = "kueue.x-k8s.io/queue-name"
	// JobUIDLabel is on the Workloads Kueue makes for a job: the job's UID.
	JobUIDLabel = "kueue.x-k8s.io/job-uid"
	// PodSetLabel, LocalQueueLabel and ClusterQueueLabel are on the pod templates of the jobs Kueue admits.
	PodSetLabel       = "kueue.x-k8s.io/podset"
	LocalQueueLabel   = "kueue.x-k8s.io/local-queue-name"
	ClusterQueueLabel = "kueue.x-k8s.io/cluster-queue-name"
	// ProvisioningRequestController is the AdmissionCheck controller Kueue runs for ProvisioningRequests.
	ProvisioningRequestController = "kueue.x-k8s.io/provisioning-request"
	// ElasticJobAnnotation opts a job into workload slices.
	ElasticJobAnnotation = "kueue.x-k8s.io/elastic-job"
)

// RayClusterLabel names a pod's RayCluster (KubeRay's controllers/ray/utils, RayClusterLabelKey).
const RayClusterLabel = "ray.io/cluster"

// The domains whose keys Kueue and KubeRay write on the objects they manage (Kueue also under subdomains:
// provreq.kueue.x-k8s.io, workload.kueue.x-k8s.io).
const (
	KueueDomain = "kueue.x-k8s.io"
	RayDomain   = "ray.io"
)

// InDomain says whether the label or annotation key is in domain or one of its subdomains: "ray.io/cluster" and
// "x.ray.io/y" are in ray.io, "xray.io/team" and "team" are not.
func InDomain(key, domain string) bool {
	prefix, _, found := strings.Cut(key, "/")
	return found && (prefix == domain || strings.HasSuffix(prefix, "."+domain))
}
