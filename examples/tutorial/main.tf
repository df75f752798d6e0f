# The DWS + Kueue TPU fallback tutorial as a configuration: the TPU node pools (steps 2 to 4) and the Kueue queue
# (step 6). The cluster, the Kueue install and the RayJobs join it as their resources land.
terraform {
  required_providers {
    dwsfallback = {
      source = "dwsfallback/dwsfallback"
    }
  }
}

provider "dwsfallback" {
  location = var.location
}

variable "location" {
  description = "Zone of the cluster."
  type        = string
  default     = "us-east5-b"
}

variable "cluster" {
  description = "Name or id of the GKE cluster."
  type        = string
  default     = "tpu-cluster"
}

variable "machine_type" {
  description = "TPU machine type of both pools."
  type        = string
  default     = "ct6e-standard-4t"
}

variable "tpu_topology" {
  description = "TPU slice topology of both pools."
  type        = string
  default     = "4x4"
}

variable "max_nodes" {
  description = "Autoscaling maximum of each pool (a whole number of slices)."
  type        = number
  default     = 4
}

resource "dwsfallback_tpu_pool_pair" "v6e" {
  cluster      = var.cluster
  machine_type = var.machine_type
  tpu_topology = var.tpu_topology
  min_nodes    = 0
  max_nodes    = var.max_nodes

  on_demand  = { name = "on-demand-pool" }
  flex_start = { name = "dws-pool" }
}

resource "dwsfallback_kueue_queue" "tpu" {
  cluster = var.cluster
  name    = "cluster-queue"
  flavors = [
    {
      name        = "default-cpu"
      node_labels = { "cloud.google.com/gke-nodepool" = "default-pool" }
      quotas      = { cpu = "10", memory = "20Gi", "google.com/tpu" = "0" }
    },
    {
      name        = "on-demand"
      node_labels = dwsfallback_tpu_pool_pair.v6e.on_demand.node_labels
      quotas      = { cpu = "40", memory = "75Gi", "google.com/tpu" = tostring(dwsfallback_tpu_pool_pair.v6e.chips_per_slice) }
    },
    {
      name         = "dws"
      node_labels  = dwsfallback_tpu_pool_pair.v6e.flex_start.node_labels
      quotas       = { cpu = "1000000000", memory = "1000000000Gi", "google.com/tpu" = "1000000000" }
      provisioning = { admission_check = "dws-prov", config = "dws-config" }
    },
  ]
  local_queues = [{ namespace = "default", name = "user-queue" }]
}

output "queue_active" {
  description = "Whether Kueue reports the ClusterQueue Active."
  value       = dwsfallback_kueue_queue.tpu.active
}

output "flex_start_enabled" {
  description = "config.flexStart of the DWS pool, read back from GKE (the tutorial's verification step)."
  value       = dwsfallback_tpu_pool_pair.v6e.flex_start.flex_start_enabled
}

output "node_labels" {
  description = "Node labels that select each pool, for Kueue ResourceFlavors."
  value = {
    on_demand = dwsfallback_tpu_pool_pair.v6e.on_demand.node_labels
    dws       = dwsfallback_tpu_pool_pair.v6e.flex_start.node_labels
  }
}

output "slice" {
  description = "What one TPU slice is made of, for RayJob worker groups."
  value = {
    accelerator     = dwsfallback_tpu_pool_pair.v6e.tpu_accelerator
    topology        = dwsfallback_tpu_pool_pair.v6e.tpu_topology
    chips_per_node  = dwsfallback_tpu_pool_pair.v6e.chips_per_node
    nodes_per_slice = dwsfallback_tpu_pool_pair.v6e.nodes_per_slice
  }
}
