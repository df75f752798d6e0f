# Capacity-aware fallback: the tutorial's TPU v6e 4x4 jobs on a GKE ComputeClass of two priorities, plan A's
# on-demand pool, then plan B's flex-start pool. When plan A's zone has no capacity, GKE's cluster autoscaler backs
# plan A off and scales plan B: the jobs run there. Kueue still queues the jobs on quota (one flavor, on the class).
terraform {
  required_version = ">= 1.8" # provider functions (tpu_slice)
  required_providers {
    dwsfallback = {
      source = "dwsfallback/dwsfallback"
    }
  }
}

provider "dwsfallback" {
  location = var.location
}

variable "location" {
  description = "Zone of the cluster."
  type        = string
  default     = "us-east5-b"
}

variable "cluster" {
  description = "Name of the GKE cluster (made here when create_cluster is true), or the id of an existing one."
  type        = string
  default     = "capacity-cluster"
}

variable "create_cluster" {
  description = "Create the cluster; false uses an existing cluster named by var.cluster."
  type        = bool
  default     = true
}

variable "deletion_protection" {
  description = "Refuse to destroy the cluster while true."
  type        = bool
  default     = true
}

variable "install_kueue" {
  description = "Install Kueue with Helm; false when Kueue is already there (the local stack runs its own)."
  type        = bool
  default     = true
}

variable "on_demand_pool" {
  description = "Plan A: the on-demand pool, the class's first priority."
  type        = string
  default     = "on-demand-pool"
}

variable "flex_start_pool" {
  description = "Plan B: flex-start VMs without queued provisioning, the class's second priority."
  type        = string
  default     = "flex-start-pool"
}

variable "compute_class" {
  description = "Name of the ComputeClass."
  type        = string
  default     = "tpu-fallback"
}

variable "jobs" {
  description = "How many training jobs to run (each takes one 4x4 slice)."
  type        = number
  default     = 2
}

locals {
  machine_type = "ct6e-standard-4t"
  topology     = "4x4"
  # Sized before any pool exists, from the catalog the pool pair is checked against.
  slice   = provider::dwsfallback::tpu_slice(local.machine_type, local.topology)
  cluster = var.create_cluster ? dwsfallback_cluster.tpu[0].id : var.cluster
}

resource "dwsfallback_cluster" "tpu" {
  count                     = var.create_cluster ? 1 : 0
  name                      = var.cluster
  kubernetes_version        = "1.34"
  default_pool_machine_type = "n2-standard-16"
  image_streaming           = true
  ray_operator              = true
  deletion_protection       = var.deletion_protection
}

resource "dwsfallback_kueue_install" "kueue" {
  count         = var.install_kueue ? 1 : 0
  cluster       = local.cluster
  chart_version = "0.17.0"
  feature_gates = { ElasticJobsViaWorkloadSlices = true }
}

# Both pools join the class: GKE's label and NoSchedule taint. Either pool can hold every job.
resource "dwsfallback_tpu_pool_pair" "v6e" {
  cluster       = local.cluster
  machine_type  = local.machine_type
  tpu_topology  = local.topology
  max_nodes     = local.slice.nodes_per_slice
  slices        = var.jobs # a multi-host slice pool holds one slice: one pool of each plan per job
  compute_class = var.compute_class
  on_demand     = { name = var.on_demand_pool }
  flex_start    = { name = var.flex_start_pool, provisioning = "flex-start-unqueued" }
}

resource "dwsfallback_compute_class" "tpu" {
  cluster = local.cluster
  name    = var.compute_class
  priorities = [
    { nodepools = dwsfallback_tpu_pool_pair.v6e.on_demand_pools },
    { nodepools = dwsfallback_tpu_pool_pair.v6e.flex_start_pools },
  ]
}

# Kueue gives quota, the class gives capacity: one TPU flavor whose node label is the class, not a pool.
resource "dwsfallback_kueue_queue" "tpu" {
  cluster = local.cluster
  name    = "capacity-queue"
  flavors = [
    {
      name        = "capacity-default-cpu"
      node_labels = { "cloud.google.com/gke-nodepool" = "default-pool" }
      # Each job's Ray head (2 CPUs, 4Gi) and its KubeRay submitter pod (requests 500m, 200Mi) run here.
      quotas = { cpu = tostring(max(10, 3 * var.jobs)), memory = "${max(20, 5 * var.jobs)}Gi", "google.com/tpu" = "0" }
    },
    {
      name        = "capacity-tpu-class"
      node_labels = { "cloud.google.com/compute-class" = dwsfallback_compute_class.tpu.name }
      # One slice per job: its workers' 8 CPUs and 16Gi per node.
      quotas = {
        cpu              = tostring(8 * local.slice.nodes_per_slice * var.jobs)
        memory           = "${16 * local.slice.nodes_per_slice * var.jobs}Gi"
        "google.com/tpu" = tostring(local.slice.chips_per_slice * var.jobs)
      }
    },
  ]
  local_queues = [{ namespace = "default", name = "capacity-user-queue" }]
  depends_on   = [dwsfallback_kueue_install.kueue]
}

resource "dwsfallback_rayjob" "job" {
  count         = var.jobs
  cluster       = local.cluster
  name          = "capacity-rayjob-${count.index + 1}"
  queue         = "capacity-user-queue"
  elastic       = true
  compute_class = dwsfallback_compute_class.tpu.name
  entrypoint    = "python /app/train.py"
  files         = { "train.py" = file("${path.module}/../tutorial/train.py") }
  runtime_env   = { pip = ["jax[tpu]==0.8.2", "pandas==2.3.3"] }
  image         = "rayproject/ray:2.53.0-py311"
  head          = { cpu = "2", memory = "4Gi", node_selector = { "cloud.google.com/gke-nodepool" = "default-pool" } }
  tpu_workers = {
    accelerator    = dwsfallback_tpu_pool_pair.v6e.tpu_accelerator
    topology       = dwsfallback_tpu_pool_pair.v6e.tpu_topology
    chips_per_node = dwsfallback_tpu_pool_pair.v6e.chips_per_node
    replicas       = 1
    min_replicas   = 1
    max_replicas   = 2
    cpu            = "8"
    memory         = "16Gi"
  }
  wait_for   = "running"
  depends_on = [dwsfallback_kueue_queue.tpu]
}

output "nodes_by_pool" {
  description = "Job name, then node pool, then how many nodes run its Ray pods: the TPU workers on var.on_demand_pool, or on var.flex_start_pool when plan A had no capacity; heads on default-pool."
  value       = { for j in dwsfallback_rayjob.job : j.name => j.nodes_by_pool }
}

output "compute_class_health" {
  description = "GKE's Health condition of the class, and what it finds wrong with its pools."
  value       = dwsfallback_compute_class.tpu.health
}
