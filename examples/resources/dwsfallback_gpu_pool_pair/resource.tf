# Plan A and plan B for H100s: an on-demand pool, and a DWS pool of flex-start VMs with queued provisioning.
resource "dwsfallback_gpu_pool_pair" "h100" {
  cluster            = "gpu-cluster"
  location           = "us-east5-b"
  machine_type       = "a3-highgpu-8g" # 8 x nvidia-h100-80gb per node
  gpu_driver_version = "latest"
  max_nodes          = 2

  on_demand  = { name = "gpu-on-demand" }
  flex_start = { name = "gpu-dws" }
}

# Wire the pools into Kueue flavors, and the GPU type into a RayJob's gpu_workers.
output "gpu_node_labels" {
  value = dwsfallback_gpu_pool_pair.h100.flex_start.node_labels
}

output "gpu_type" {
  value = dwsfallback_gpu_pool_pair.h100.gpu_type
}
