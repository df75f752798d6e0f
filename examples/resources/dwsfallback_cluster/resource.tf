# The tutorial's cluster: GKE 1.34, image streaming, the RayOperator add-on.
resource "dwsfallback_cluster" "tpu" {
  name                      = "tpu-cluster"
  location                  = "us-east5-b"
  kubernetes_version        = "1.34"
  default_pool_machine_type = "n2-standard-16"
  image_streaming           = true
  ray_operator              = true
}

# Other resources take the id as their cluster.
resource "dwsfallback_tpu_pool_pair" "v6e" {
  cluster      = dwsfallback_cluster.tpu.id
  machine_type = "ct6e-standard-4t"
  tpu_topology = "4x4"
  max_nodes    = 4
  on_demand    = { name = "on-demand-pool" }
  flex_start   = { name = "dws-pool" }
}
