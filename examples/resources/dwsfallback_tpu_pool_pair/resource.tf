# The tutorial's two TPU v6e node pools: plan A on demand, plan B from DWS flex-start capacity.
resource "dwsfallback_tpu_pool_pair" "v6e" {
  cluster      = "tpu-cluster"
  location     = "us-east5-b"
  machine_type = "ct6e-standard-4t"
  tpu_topology = "4x4"
  min_nodes    = 0
  max_nodes    = 4

  on_demand  = { name = "on-demand-pool" }
  flex_start = { name = "dws-pool" }
}

# Wire the pools into Kueue flavors and RayJob selectors.
output "on_demand_node_labels" {
  value = dwsfallback_tpu_pool_pair.v6e.on_demand.node_labels
}

output "flex_start_enabled" {
  value = dwsfallback_tpu_pool_pair.v6e.flex_start.flex_start_enabled
}
