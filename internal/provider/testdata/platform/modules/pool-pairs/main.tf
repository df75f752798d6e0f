# A platform team's node pools: one DWS fallback pair per TPU generation, all fed from one variable.
terraform {
  required_providers {
    dwsfallback = { source = "dwsfallback/dwsfallback" }
  }
}

variable "cluster" {
  type = string
}

variable "pairs" {
  description = "Pool pairs by generation."
  type = map(object({
    machine_type = string
    topology     = string
    max_nodes    = number
    # Unset, the pools are in the cluster's zone.
    node_locations = optional(list(string))
    pools          = object({ on_demand = string, flex_start = string })
  }))
}

resource "dwsfallback_tpu_pool_pair" "this" {
  for_each     = var.pairs
  cluster      = var.cluster
  machine_type = each.value.machine_type
  tpu_topology = each.value.topology
  max_nodes    = each.value.max_nodes
  # A null keeps GKE's choice, as leaving the attribute out does.
  node_locations = each.value.node_locations
  on_demand      = { name = each.value.pools.on_demand }
  flex_start     = { name = each.value.pools.flex_start }
}

output "pairs" {
  value = { for k, p in dwsfallback_tpu_pool_pair.this : k => {
    on_demand_labels  = p.on_demand.node_labels
    flex_start_labels = p.flex_start.node_labels
    accelerator       = p.tpu_accelerator
    topology          = p.tpu_topology
    chips_per_node    = p.chips_per_node
    chips_per_slice   = p.chips_per_slice
  } }
}
