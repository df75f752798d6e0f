# The tutorial's training job on the queue and pools of the other examples.
resource "dwsfallback_rayjob" "train" {
  cluster     = "tpu-cluster"
  name        = "rayjob-tpu-v6e-dws-1"
  queue       = "user-queue"
  elastic     = true
  entrypoint  = "python /app/train.py"
  files       = { "train.py" = file("${path.module}/train.py") }
  runtime_env = { pip = ["jax[tpu]==0.8.2", "pandas==2.3.3"] }
  image       = "rayproject/ray:2.53.0-py311"
  head = {
    cpu           = "2"
    memory        = "4Gi"
    node_selector = { "cloud.google.com/gke-nodepool" = "default-pool" }
  }
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
  wait_for = "admitted"
}

output "admitted_flavor" {
  value = dwsfallback_rayjob.train.admitted_flavor # "on-demand", or "dws" when plan A is full
}
