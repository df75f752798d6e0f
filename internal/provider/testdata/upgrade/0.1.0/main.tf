# What version 0.1.0 applied for the upgrade fixture beside it: each resource kind once as a platform module writes
# it (settings left to their defaults) and once with its settings spelled out.

resource "dwsfallback_cluster" "min" {
  name                = "upg-min"
  deletion_protection = false
}

resource "dwsfallback_cluster" "full" {
  name                      = "upg-full"
  kubernetes_version        = "1.34"
  release_channel           = "RAPID"
  ray_operator              = true
  image_streaming           = true
  default_pool_machine_type = "n2-standard-16"
  default_pool_node_count   = 1
  labels                    = { team = "ml", env = "upgrade" }
  deletion_protection       = false
}

resource "dwsfallback_tpu_pool_pair" "min" {
  cluster      = dwsfallback_cluster.full.name
  machine_type = "ct6e-standard-4t"
  tpu_topology = "4x4"
  max_nodes    = 4
  on_demand    = { name = "upg-od" }
  flex_start   = { name = "upg-dws" }
}

resource "dwsfallback_tpu_pool_pair" "full" {
  cluster         = dwsfallback_cluster.full.name
  machine_type    = "ct6e-standard-4t"
  tpu_topology    = "2x2"
  tpu_accelerator = "tpu-v6e-slice"
  chips_per_node  = 4
  min_nodes       = 0
  max_nodes       = 2
  on_demand       = { name = "upg-od-small", reservation_affinity = "none" }
  flex_start      = { name = "upg-dws-small", provisioning = "queued" }
}

resource "dwsfallback_gpu_pool_pair" "min" {
  cluster      = dwsfallback_cluster.full.name
  machine_type = "a3-highgpu-8g"
  max_nodes    = 2
  on_demand    = { name = "upg-gpu-od" }
  flex_start   = { name = "upg-gpu-dws" }
}

resource "dwsfallback_kueue_queue" "min" {
  cluster = dwsfallback_cluster.full.name
  name    = "upg-min-cluster-queue"
  flavors = [
    { name = "upg-min-on-demand", node_labels = dwsfallback_tpu_pool_pair.min.on_demand.node_labels,
      quotas = { cpu = "40", memory = "75Gi", "google.com/tpu" = "16" } },
    { name = "upg-min-dws", node_labels = dwsfallback_tpu_pool_pair.min.flex_start.node_labels,
      quotas = { cpu = "1000000000", memory = "1000000000Gi", "google.com/tpu" = "1000000000" },
      provisioning = {} },
  ]
  local_queues = [{ namespace = "default", name = "upg-min-user-queue" }]
}

resource "dwsfallback_kueue_queue" "full" {
  cluster            = dwsfallback_cluster.full.name
  name               = "upg-full-cluster-queue"
  cohort             = "upg-cohort"
  queueing_strategy  = "StrictFIFO"
  namespace_selector = { "kubernetes.io/metadata.name" = "default" }
  preemption = {
    reclaim_within_cohort = "Any"
    borrow_within_cohort  = "Never"
    within_cluster_queue  = "LowerPriority"
  }
  flavor_fungibility = { when_can_borrow = "TryNextFlavor", when_can_preempt = "TryNextFlavor" }
  flavors = [
    { name = "upg-full-default-cpu", node_labels = { "cloud.google.com/gke-nodepool" = "default-pool" },
      quotas = { cpu = "10", memory = "20Gi", "google.com/tpu" = "0" } },
    { name = "upg-full-on-demand", node_labels = dwsfallback_tpu_pool_pair.full.on_demand.node_labels,
      quotas = { cpu = "40", memory = "75Gi", "google.com/tpu" = "8" },
      lending_limits = { "google.com/tpu" = "4" } },
    { name = "upg-full-dws", node_labels = dwsfallback_tpu_pool_pair.full.flex_start.node_labels,
      quotas = { cpu = "1000000000", memory = "1000000000Gi", "google.com/tpu" = "1000000000" },
      provisioning = {
        admission_check   = "upg-full-dws-prov"
        config            = "upg-full-dws-config"
        managed_resources = ["google.com/tpu"]
        parameters        = { ValidUntilSeconds = "600" }
        retry             = { backoff_limit_count = 2, backoff_base_seconds = 60, backoff_max_seconds = 1800 }
      } },
  ]
  local_queues = [{ namespace = "default", name = "upg-full-user-queue" }]
}

resource "dwsfallback_rayjob" "min" {
  cluster    = dwsfallback_cluster.full.name
  name       = "upg-min-job"
  queue      = "upg-min-user-queue"
  entrypoint = "python /app/train.py"
  files      = { "train.py" = "print('training')\n" }
  image      = "rayproject/ray:2.53.0-py311"
  head       = { cpu = "2", memory = "4Gi" }
  tpu_workers = {
    accelerator    = dwsfallback_tpu_pool_pair.min.tpu_accelerator
    topology       = dwsfallback_tpu_pool_pair.min.tpu_topology
    chips_per_node = dwsfallback_tpu_pool_pair.min.chips_per_node
    cpu            = "8"
    memory         = "16Gi"
  }
  depends_on = [dwsfallback_kueue_queue.min]
}

resource "dwsfallback_rayjob" "full" {
  cluster          = dwsfallback_cluster.full.name
  namespace        = "default"
  name             = "upg-full-job"
  queue            = "upg-full-user-queue"
  elastic          = true
  entrypoint       = "python /app/train.py --steps 10"
  files            = { "train.py" = "print('training')\n" }
  files_mount_path = "/work"
  runtime_env      = { pip = ["jax[tpu]==0.8.2", "pandas==2.3.3"] }
  image            = "rayproject/ray:2.53.0-py311"
  env              = { JAX_PLATFORMS = "tpu" }
  labels           = { team = "ml" }
  annotations      = { "example.com/owner" = "upgrade" }
  head             = { cpu = "2", memory = "4Gi", node_selector = { "cloud.google.com/gke-nodepool" = "default-pool" } }
  tpu_workers = {
    group_name     = "tpu"
    accelerator    = dwsfallback_tpu_pool_pair.full.tpu_accelerator
    topology       = dwsfallback_tpu_pool_pair.full.tpu_topology
    chips_per_node = dwsfallback_tpu_pool_pair.full.chips_per_node
    replicas       = 1
    min_replicas   = 1
    max_replicas   = 2
    cpu            = "8"
    memory         = "16Gi"
  }
  shutdown_after_job_finishes = true
  resubmit_when_deleted       = true
  wait_for                    = "none"
  depends_on                  = [dwsfallback_kueue_queue.full]
}

resource "dwsfallback_rayjob" "gpu" {
  cluster    = dwsfallback_cluster.full.name
  name       = "upg-gpu-job"
  queue      = "upg-min-user-queue"
  entrypoint = "python /app/train.py"
  files      = { "train.py" = "print('training')\n" }
  image      = "rayproject/ray:2.53.0-py311-gpu"
  head       = { cpu = "2", memory = "4Gi" }
  gpu_workers = {
    accelerator = dwsfallback_gpu_pool_pair.min.gpu_type
    gpus        = dwsfallback_gpu_pool_pair.min.gpus_per_node
    cpu         = "8"
    memory      = "64Gi"
  }
  wait_for   = "none"
  depends_on = [dwsfallback_kueue_queue.min]
}
