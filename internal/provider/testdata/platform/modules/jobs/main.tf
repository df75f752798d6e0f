# Training runs of several teams and TPU generations, each shaped by its generation's slice.
terraform {
  required_providers {
    dwsfallback = { source = "dwsfallback/dwsfallback" }
  }
}

variable "cluster" {
  type = string
}

variable "slices" {
  description = "Worker shape per generation, from the infra state."
  type        = map(object({ accelerator = string, topology = string, chips_per_node = number }))
}

variable "queues" {
  description = "LocalQueue per team, from the infra state."
  type        = map(string)
}

variable "jobs" {
  type = map(object({ team = string, generation = string }))
}

variable "worker" {
  description = "What every TPU worker gets besides its slice."
  type        = object({ cpu = string, memory = string })
}

variable "script" {
  type = string
}

resource "dwsfallback_rayjob" "job" {
  for_each         = var.jobs
  cluster          = var.cluster
  name             = each.key
  queue            = var.queues[each.value.team]
  elastic          = true
  entrypoint       = "python /app/train.py"
  files            = { "train.py" = var.script }
  files_config_map = "train-script"
  runtime_env      = { pip = ["jax[tpu]==0.8.2"] }
  image            = "rayproject/ray:2.53.0-py311"
  head             = { cpu = "1", memory = "2Gi", node_selector = { "cloud.google.com/gke-nodepool" = "default-pool" } }
  tpu_workers      = merge(var.slices[each.value.generation], var.worker, { max_replicas = 1 })
  wait_for         = "admitted"
}

output "admitted_flavors" {
  value = { for k, j in dwsfallback_rayjob.job : k => j.admitted_flavor }
}
