# The DWS + Kueue TPU fallback tutorial as a configuration. Today it holds the TPU node pools (steps 2 to 4); the
# cluster, Kueue and the RayJobs join it as their resources land.
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
