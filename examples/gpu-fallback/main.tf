# The GPU variant of the DWS + Kueue fallback tutorial, on an existing cluster (such as the tutorial's): an H100 pool
# pair, a Kueue queue that lists on-demand before DWS, and two jobs of one whole 8-GPU node each. Job 1 takes plan A's
# quota, job 2 falls back to DWS.
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
  description = "Name or id of the GKE cluster (with the RayOperator add-on, Kueue, and a CPU pool named default-pool)."
  type        = string
  default     = "tpu-cluster"
}

variable "machine_type" {
  description = "GPU machine type of both pools: a3-highgpu-8g (8 H100), a3-ultragpu-8g (8 H200), a4-highgpu-8g (8 B200), g2-standard-24 (2 L4), ..."
  type        = string
  default     = "a3-highgpu-8g"
}

resource "dwsfallback_gpu_pool_pair" "gpu" {
  cluster            = var.cluster
  machine_type       = var.machine_type
  gpu_driver_version = "latest"
  max_nodes          = 2

  on_demand  = { name = "gpu-on-demand" }
  flex_start = { name = "gpu-dws" }
}

resource "dwsfallback_kueue_queue" "gpu" {
  cluster = var.cluster
  name    = "gpu-cluster-queue"
  flavors = [
    {
      name        = "gpu-default-cpu"
      node_labels = { "cloud.google.com/gke-nodepool" = "default-pool" }
      quotas      = { cpu = "10", memory = "20Gi", "nvidia.com/gpu" = "0" }
    },
    {
      # One node's GPUs on demand: the second job falls back.
      name        = "gpu-on-demand"
      node_labels = dwsfallback_gpu_pool_pair.gpu.on_demand.node_labels
      quotas      = { cpu = "40", memory = "300Gi", "nvidia.com/gpu" = tostring(dwsfallback_gpu_pool_pair.gpu.gpus_per_node) }
    },
    {
      name         = "gpu-dws"
      node_labels  = dwsfallback_gpu_pool_pair.gpu.flex_start.node_labels
      quotas       = { cpu = "1000000000", memory = "1000000000Gi", "nvidia.com/gpu" = "1000000000" }
      provisioning = { admission_check = "gpu-dws-prov", config = "gpu-dws-config", managed_resources = ["nvidia.com/gpu"] }
    },
  ]
  local_queues = [{ namespace = "default", name = "gpu-user-queue" }]
}

locals {
  job = {
    entrypoint = "python /app/train.py"
    files      = { "train.py" = file("${path.module}/../tutorial/train.py") }
    image      = "rayproject/ray:2.53.0-py311-gpu"
    head       = { cpu = "2", memory = "4Gi", node_selector = { "cloud.google.com/gke-nodepool" = "default-pool" } }
    gpu_workers = {
      accelerator = dwsfallback_gpu_pool_pair.gpu.gpu_type
      gpus        = dwsfallback_gpu_pool_pair.gpu.gpus_per_node
      cpu         = "8"
      memory      = "64Gi"
    }
  }
}

resource "dwsfallback_rayjob" "job1" {
  cluster     = var.cluster
  name        = "rayjob-gpu-dws-1"
  queue       = "gpu-user-queue"
  elastic     = true
  entrypoint  = local.job.entrypoint
  files       = local.job.files
  image       = local.job.image
  head        = local.job.head
  gpu_workers = local.job.gpu_workers
  wait_for    = "running"
  depends_on  = [dwsfallback_kueue_queue.gpu]
}

resource "dwsfallback_rayjob" "job2" {
  cluster     = var.cluster
  name        = "rayjob-gpu-dws-2"
  queue       = "gpu-user-queue"
  elastic     = true
  entrypoint  = local.job.entrypoint
  files       = local.job.files
  image       = local.job.image
  head        = local.job.head
  gpu_workers = local.job.gpu_workers
  wait_for    = "running"
  depends_on  = [dwsfallback_rayjob.job1]
}

output "placement" {
  description = "Where each job was admitted and where its pods run."
  value = {
    job1 = { flavor = dwsfallback_rayjob.job1.admitted_flavor, nodes = dwsfallback_rayjob.job1.nodes_by_pool }
    job2 = { flavor = dwsfallback_rayjob.job2.admitted_flavor, nodes = dwsfallback_rayjob.job2.nodes_by_pool }
  }
}
