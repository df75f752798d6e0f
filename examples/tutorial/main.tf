# The DWS + Kueue TPU fallback tutorial as a configuration: the cluster (step 1), the TPU node pools (steps 2 to 4),
# Kueue (step 5, switchable), the Kueue queue (step 6) and two training jobs (step 7).
terraform {
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
  default     = "tpu-cluster"
}

variable "create_cluster" {
  description = "Create the cluster (the tutorial's step 1); false uses an existing cluster named by var.cluster."
  type        = bool
  default     = true
}

variable "deletion_protection" {
  description = "Refuse to destroy the cluster while true."
  type        = bool
  default     = true
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

locals {
  cluster = var.create_cluster ? dwsfallback_cluster.tpu[0].id : var.cluster
}

variable "install_kueue" {
  description = "Install Kueue with Helm (the tutorial's step 5); false when Kueue is already there (the local stack runs its own)."
  type        = bool
  default     = true
}

resource "dwsfallback_kueue_install" "kueue" {
  count         = var.install_kueue ? 1 : 0
  cluster       = local.cluster
  chart_version = "0.17.0"
  feature_gates = { ElasticJobsViaWorkloadSlices = true }
}

variable "machine_type" {
  description = "TPU machine type of both pools."
  type        = string
  default     = "ct6e-standard-4t"
}

variable "tpu_topology" {
  description = "TPU slice topology of both pools."
  type        = string
  default     = "4x4"
}

variable "max_nodes" {
  description = "Autoscaling maximum of each pool (a whole number of slices)."
  type        = number
  default     = 4
}

resource "dwsfallback_tpu_pool_pair" "v6e" {
  cluster      = local.cluster
  machine_type = var.machine_type
  tpu_topology = var.tpu_topology
  min_nodes    = 0
  max_nodes    = var.max_nodes

  on_demand  = { name = "on-demand-pool" }
  flex_start = { name = "dws-pool" }
}

resource "dwsfallback_kueue_queue" "tpu" {
  cluster = local.cluster
  name    = "cluster-queue"
  flavors = [
    {
      name        = "default-cpu"
      node_labels = { "cloud.google.com/gke-nodepool" = "default-pool" }
      quotas      = { cpu = "10", memory = "20Gi", "google.com/tpu" = "0" }
    },
    {
      name        = "on-demand"
      node_labels = dwsfallback_tpu_pool_pair.v6e.on_demand.node_labels
      quotas      = { cpu = "40", memory = "75Gi", "google.com/tpu" = tostring(dwsfallback_tpu_pool_pair.v6e.chips_per_slice) }
    },
    {
      name         = "dws"
      node_labels  = dwsfallback_tpu_pool_pair.v6e.flex_start.node_labels
      quotas       = { cpu = "1000000000", memory = "1000000000Gi", "google.com/tpu" = "1000000000" }
      provisioning = { admission_check = "dws-prov", config = "dws-config" }
    },
  ]
  local_queues = [{ namespace = "default", name = "user-queue" }]
  depends_on   = [dwsfallback_kueue_install.kueue]
}

# Two runs of the training script. The tutorial submits them two seconds apart; here job 2 waits until job 1 runs
# (admitted, and its pods on nodes GKE scaled up), so job 1 takes plan A's quota and job 2 falls back to DWS, every
# time. Each apply returns when its job runs on its nodes: "complete" would need a real Ray head.
locals {
  job = {
    queue       = "user-queue"
    entrypoint  = "python /app/train.py"
    files       = { "train.py" = file("${path.module}/train.py") }
    runtime_env = { pip = ["jax[tpu]==0.8.2", "pandas==2.3.3"] }
    image       = "rayproject/ray:2.53.0-py311"
    head        = { cpu = "2", memory = "4Gi", node_selector = { "cloud.google.com/gke-nodepool" = "default-pool" } }
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
  }
}

resource "dwsfallback_rayjob" "job1" {
  cluster     = local.cluster
  name        = "rayjob-tpu-v6e-dws-1"
  queue       = local.job.queue
  elastic     = true
  entrypoint  = local.job.entrypoint
  files       = local.job.files
  runtime_env = local.job.runtime_env
  image       = local.job.image
  head        = local.job.head
  tpu_workers = local.job.tpu_workers
  wait_for    = "running"
  depends_on  = [dwsfallback_kueue_queue.tpu]
}

resource "dwsfallback_rayjob" "job2" {
  cluster     = local.cluster
  name        = "rayjob-tpu-v6e-dws-2"
  queue       = local.job.queue
  elastic     = true
  entrypoint  = local.job.entrypoint
  files       = local.job.files
  runtime_env = local.job.runtime_env
  image       = local.job.image
  head        = local.job.head
  tpu_workers = local.job.tpu_workers
  wait_for    = "running"
  depends_on  = [dwsfallback_rayjob.job1]
}

output "admitted_flavors" {
  description = "Where Kueue put each job: job 1 on plan A (on-demand), job 2 on plan B (dws)."
  value       = [dwsfallback_rayjob.job1.admitted_flavor, dwsfallback_rayjob.job2.admitted_flavor]
}

output "nodes_by_pool" {
  description = "Where each job's Ray pods run: job 1's TPU workers on on-demand-pool nodes, job 2's on dws-pool nodes, heads on default-pool."
  value = {
    job1 = dwsfallback_rayjob.job1.nodes_by_pool
    job2 = dwsfallback_rayjob.job2.nodes_by_pool
  }
}

output "queue_active" {
  description = "Whether Kueue reports the ClusterQueue Active."
  value       = dwsfallback_kueue_queue.tpu.active
}

output "flex_start_enabled" {
  description = "config.flexStart of the DWS pool, read back from GKE (the tutorial's verification step)."
  value       = dwsfallback_tpu_pool_pair.v6e.flex_start.flex_start_enabled
}

output "node_labels" {
  description = "Node labels that select each pool, for Kueue ResourceFlavors."
  value = {
    on_demand = dwsfallback_tpu_pool_pair.v6e.on_demand.node_labels
    dws       = dwsfallback_tpu_pool_pair.v6e.flex_start.node_labels
  }
}

output "slice" {
  description = "What one TPU slice is made of, for RayJob worker groups."
  value = {
    accelerator     = dwsfallback_tpu_pool_pair.v6e.tpu_accelerator
    topology        = dwsfallback_tpu_pool_pair.v6e.tpu_topology
    chips_per_node  = dwsfallback_tpu_pool_pair.v6e.chips_per_node
    nodes_per_slice = dwsfallback_tpu_pool_pair.v6e.nodes_per_slice
  }
}
