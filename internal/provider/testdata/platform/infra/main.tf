# The infra repo: pool pairs and team queues, in their own state.
terraform {
  required_providers {
    dwsfallback = { source = "dwsfallback/dwsfallback" }
  }
}

provider "dwsfallback" {}

variable "cluster" {
  type = string
}

variable "pairs" {
  type = any
}

variable "teams" {
  type = any
}

variable "cpu_flavor" {
  type = object({
    name        = string
    node_labels = map(string)
    quotas      = map(string)
  })
  default = {
    name        = "default-cpu"
    node_labels = { "cloud.google.com/gke-nodepool" = "default-pool" }
    quotas      = { cpu = "10", memory = "20Gi", "google.com/tpu" = "0" }
  }
}

module "pools" {
  source  = "../modules/pool-pairs"
  cluster = var.cluster
  pairs   = var.pairs
}

module "queues" {
  source       = "../modules/team-queues"
  cluster      = var.cluster
  cohort       = "ml"
  pairs        = module.pools.pairs
  teams        = var.teams
  cpu_flavor   = var.cpu_flavor
  provisioning = { admission_check = "dws-prov", config = "dws-config" }
}

output "slices" {
  value = { for k, p in module.pools.pairs : k => { accelerator = p.accelerator, topology = p.topology, chips_per_node = p.chips_per_node } }
}

output "queues" {
  value = module.queues.local_queues
}
