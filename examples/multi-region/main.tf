# Fallback across regions with MultiKueue: a manager cluster holds the queue, and worker clusters in zones where GKE
# offers TPU v6e flex-start each run the tutorial's on-demand + DWS pool pair and queue. Kueue copies each job to every
# worker; the first worker that admits it (quota, then DWS capacity) runs it, and the other copies are removed. So DWS
# searches capacity in every region at once.
terraform {
  required_version = ">= 1.8" # provider functions (tpu_slice)
  required_providers {
    dwsfallback = {
      source = "dwsfallback/dwsfallback"
    }
  }
}

provider "dwsfallback" {}

variable "manager_cluster" {
  description = "Name of the manager cluster, which holds the queue and runs no TPU jobs itself."
  type        = string
  default     = "multikueue-manager"
}

variable "manager_location" {
  description = "Location of the manager cluster."
  type        = string
  default     = "us-east5-b"
}

variable "worker_clusters" {
  description = "Names of the worker clusters, one per zone of worker_locations."
  type        = list(string)
  default     = ["tpu-worker-a", "tpu-worker-b"]
}

variable "worker_locations" {
  description = "Zones of the worker clusters, in the order of worker_clusters: zones where GKE offers v6e flex-start (GKE's DWS page lists asia-northeast1-b, us-east5-a and us-east5-b)."
  type        = list(string)
  default     = ["us-east5-a", "us-east5-b"]
}

variable "on_demand_tpu_quota" {
  description = "TPU chips each worker admits on demand before it waits for DWS; 0 sends every job to DWS."
  type        = number
  default     = 0
}

variable "jobs" {
  description = "How many of the tutorial's jobs to submit to the manager."
  type        = number
  default     = 2
}

variable "deletion_protection" {
  description = "Refuse to destroy the clusters while true."
  type        = bool
  default     = true
}

locals {
  machine_type = "ct6e-standard-4t"
  topology     = "4x4"
  slice        = provider::dwsfallback::tpu_slice(local.machine_type, local.topology)
  workers      = zipmap(var.worker_clusters, slice(var.worker_locations, 0, length(var.worker_clusters)))
  # A name, not a reference: the config depends on its workers, and each worker names the config it leaves.
  multikueue_config = "multikueue"
}

resource "dwsfallback_cluster" "manager" {
  name                = var.manager_cluster
  location            = var.manager_location
  kubernetes_version  = "1.34"
  deletion_protection = var.deletion_protection
}

resource "dwsfallback_cluster" "worker" {
  for_each                  = local.workers
  name                      = each.key
  location                  = each.value
  kubernetes_version        = "1.34"
  default_pool_machine_type = "n2-standard-16"
  image_streaming           = true
  ray_operator              = true
  deletion_protection       = var.deletion_protection
}

# Each worker: the tutorial's plan A and plan B.
resource "dwsfallback_tpu_pool_pair" "worker" {
  for_each     = dwsfallback_cluster.worker
  cluster      = each.value.id
  machine_type = local.machine_type
  tpu_topology = local.topology
  max_nodes    = local.slice.nodes_per_slice
  slices       = max(var.jobs, 1) # a multi-host slice pool holds one slice: one pool of each plan per job
  on_demand    = { name = "on-demand-pool" }
  flex_start   = { name = "dws-pool" }
}

# Each worker's queue, with the LocalQueue the manager's has: MultiKueue sends a job to the same namespace and queue.
resource "dwsfallback_kueue_queue" "worker" {
  for_each = dwsfallback_cluster.worker
  cluster  = each.value.id
  name     = "cluster-queue"
  flavors = [
    {
      name        = "default-cpu"
      node_labels = { "cloud.google.com/gke-nodepool" = "default-pool" }
      # Each job's Ray head (2 CPUs, 4Gi) and its KubeRay submitter pod (requests 500m, 200Mi) run here.
      quotas = { cpu = tostring(max(10, 3 * var.jobs)), memory = "${max(20, 5 * var.jobs)}Gi", "google.com/tpu" = "0" }
    },
    {
      name        = "on-demand"
      node_labels = dwsfallback_tpu_pool_pair.worker[each.key].on_demand.node_labels
      # The workers' 8 CPUs and 16Gi per 4-chip node, for every chip of the quota.
      quotas = { cpu = tostring(2 * var.on_demand_tpu_quota), memory = "${4 * var.on_demand_tpu_quota}Gi", "google.com/tpu" = tostring(var.on_demand_tpu_quota) }
    },
    {
      name         = "dws"
      node_labels  = dwsfallback_tpu_pool_pair.worker[each.key].flex_start.node_labels
      quotas       = { cpu = "1000000000", memory = "1000000000Gi", "google.com/tpu" = "1000000000" }
      provisioning = { admission_check = "dws-prov", config = "dws-config" }
    },
  ]
  local_queues = [{ namespace = "default", name = "user-queue" }]
}

# The manager reaches each worker as a ServiceAccount the provider makes there; the token never reaches state.
resource "dwsfallback_multikueue_worker" "worker" {
  for_each       = dwsfallback_cluster.worker
  cluster        = dwsfallback_cluster.manager.id
  name           = each.key
  worker_cluster = each.value.id
  # The config below lists this worker: a worker dropped from worker_clusters leaves it in the same apply.
  config     = local.multikueue_config
  depends_on = [dwsfallback_kueue_queue.worker]
}

resource "dwsfallback_multikueue_config" "workers" {
  cluster = dwsfallback_cluster.manager.id
  name    = local.multikueue_config
  workers = [for w in dwsfallback_multikueue_worker.worker : w.name]
}

# The manager's queue: quota for what may be in flight across the workers; no DWS here (Kueue refuses both checks).
resource "dwsfallback_kueue_queue" "manager" {
  cluster          = dwsfallback_cluster.manager.id
  name             = "cluster-queue"
  flavors          = [{ name = "multikueue", quotas = { cpu = "1000", memory = "4000Gi", "google.com/tpu" = tostring(local.slice.chips_per_slice * max(var.jobs, 1) * 2) } }]
  local_queues     = [{ namespace = "default", name = "user-queue" }]
  admission_checks = [dwsfallback_multikueue_config.workers.admission_check]
}

# The tutorial's job, sent to the manager. MultiKueue does not carry elastic jobs, and Kueue then refuses Ray's
# autoscaler on a job it manages: both are off.
resource "dwsfallback_rayjob" "job" {
  count                      = var.jobs
  cluster                    = dwsfallback_cluster.manager.id
  name                       = "multi-region-rayjob-${count.index + 1}"
  queue                      = "user-queue"
  elastic                    = false
  enable_in_tree_autoscaling = false
  entrypoint                 = "python /app/train.py"
  files                      = { "train.py" = file("${path.module}/../tutorial/train.py") }
  runtime_env                = { pip = ["jax[tpu]==0.8.2", "pandas==2.3.3"] }
  image                      = "rayproject/ray:2.53.0-py311"
  head                       = { cpu = "2", memory = "4Gi", node_selector = { "cloud.google.com/gke-nodepool" = "default-pool" } }
  tpu_workers = {
    accelerator    = local.slice.accelerator
    topology       = local.topology
    chips_per_node = local.slice.chips_per_node
    replicas       = 1
    min_replicas   = 1
    max_replicas   = 1
    cpu            = "8"
    memory         = "16Gi"
  }
  wait_for   = "admitted"
  depends_on = [dwsfallback_kueue_queue.manager]
}

output "dispatched_to" {
  description = "Job name to the worker cluster that runs it: the first whose queue admitted it."
  value       = { for j in dwsfallback_rayjob.job : j.name => j.dispatched_to }
}
