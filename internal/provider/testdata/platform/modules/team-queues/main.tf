# One ClusterQueue per team, in one cohort. Every team's queue declares the flavors it uses and the one DWS check;
# the shared ones (default-cpu, dws-prov) are declared alike by several queues.
terraform {
  required_providers {
    dwsfallback = { source = "dwsfallback/dwsfallback" }
  }
}

variable "cluster" {
  type = string
}

variable "cohort" {
  type = string
}

variable "pairs" {
  description = "The pool-pairs module's output."
  type = map(object({
    on_demand_labels  = map(string)
    flex_start_labels = map(string)
    accelerator       = string
    topology          = string
    chips_per_node    = number
    chips_per_slice   = number
  }))
}

variable "teams" {
  description = "Teams: their namespace, and the on-demand TPU slices they get per generation."
  type = map(object({
    namespace = string
    slices    = map(number)
  }))
}

variable "provisioning" {
  description = "The DWS admission check every team's DWS flavors share."
  type        = object({ admission_check = string, config = string })
}

variable "cpu_flavor" {
  description = "The flavor of the heads, on the default pool: every team's queue shares it."
  type = object({
    name        = string
    node_labels = map(string)
    quotas      = map(string)
  })
}

locals {
  cpu = [var.cpu_flavor]
}

resource "dwsfallback_kueue_queue" "team" {
  for_each = var.teams
  cluster  = var.cluster
  name     = "${each.key}-queue"
  cohort   = var.cohort
  flavors = concat(local.cpu,
    [for gen, n in each.value.slices : {
      name        = "${gen}-on-demand"
      node_labels = var.pairs[gen].on_demand_labels
      quotas      = { cpu = "40", memory = "75Gi", "google.com/tpu" = tostring(n * var.pairs[gen].chips_per_slice) }
    }],
    [for gen, n in each.value.slices : {
      name         = "${gen}-dws"
      node_labels  = var.pairs[gen].flex_start_labels
      quotas       = { cpu = "1000", memory = "1000Gi", "google.com/tpu" = "1000" }
      provisioning = var.provisioning
    }],
  )
  preemption   = { reclaim_within_cohort = "Any" }
  local_queues = [{ namespace = each.value.namespace, name = "${each.key}-jobs" }]
}

output "local_queues" {
  value = { for k, q in dwsfallback_kueue_queue.team : k => q.local_queues[0].name }
}
