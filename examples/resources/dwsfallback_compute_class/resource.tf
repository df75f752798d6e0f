# Plan A's on-demand pool, then plan B's flex-start pool: the cluster autoscaler falls back to plan B when plan A has
# no capacity. Both pools join the class (its label and taint) through compute_class on the pool pair.
resource "dwsfallback_tpu_pool_pair" "pools" {
  cluster       = "tpu-cluster"
  machine_type  = "ct6e-standard-4t"
  tpu_topology  = "4x4"
  max_nodes     = 4
  compute_class = "tpu-fallback"
  on_demand     = { name = "on-demand-pool" }
  flex_start    = { name = "flex-start-pool", provisioning = "flex-start-unqueued" }
}

resource "dwsfallback_compute_class" "tpu" {
  cluster = "tpu-cluster"
  name    = "tpu-fallback"
  priorities = [
    { nodepools = [dwsfallback_tpu_pool_pair.pools.on_demand.name] },
    { nodepools = [dwsfallback_tpu_pool_pair.pools.flex_start.name] },
  ]
}
