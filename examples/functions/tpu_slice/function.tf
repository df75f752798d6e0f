# Size the tutorial's pools and quota for two TPU v6e 4x4 slices before any pool exists. A module calls the
# function once it declares the provider.
terraform {
  required_providers {
    dwsfallback = {
      source = "dwsfallback/dwsfallback"
    }
  }
}

locals {
  slice  = provider::dwsfallback::tpu_slice("ct6e-standard-4t", "4x4")
  slices = 2
}

output "max_nodes" {
  value = local.slice.nodes_per_slice * local.slices # 8
}

output "tpu_quota" {
  value = local.slice.chips_per_slice * local.slices # 32
}
