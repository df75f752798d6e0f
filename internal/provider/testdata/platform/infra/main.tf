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
  provisioning = { admission_check = "dws-prov", config = "dws-config" }
}

output "slices" {
  value = { for k, p in module.pools.pairs : k => { accelerator = p.accelerator, topology = p.topology, chips_per_node = p.chips_per_node } }
}

output "queues" {
  value = module.queues.local_queues
}
