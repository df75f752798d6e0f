# TPU7x (Ironwood) fallback on an existing cluster: plan A and plan B pools of 2x2x2 slices (two 4-chip nodes each),
# placed by a Compute Engine workload policy, a queue with one slice of on-demand quota, and a job on them.
# Make the policy first: gcloud compute resource-policies create workload-policy tpu7x-2x2x2 --type=HIGH_THROUGHPUT
# --accelerator-topology=2x2x2 --region=REGION
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
  description = "Zone of the cluster: one that offers TPU7x (Cloud TPU's \"TPU regions and zones\" lists us-central1-c)."
  type        = string
  default     = "us-central1-c"
}

variable "cluster" {
  description = "Name or id of the GKE cluster (1.34.0-gke.2201000 or later for TPU7x)."
  type        = string
  default     = "tpu-cluster"
}

variable "workload_policy" {
  description = "Name of the workload policy whose accelerator topology is the pools' topology."
  type        = string
  default     = "tpu7x-2x2x2"
}

resource "dwsfallback_tpu_pool_pair" "tpu7x" {
  cluster          = var.cluster
  machine_type     = "tpu7x-standard-4t"
  tpu_topology     = "2x2x2"
  placement_policy = var.workload_policy
  max_nodes        = 2

  on_demand  = { name = "tpu7x-on-demand" }
  flex_start = { name = "tpu7x-dws" }
}

resource "dwsfallback_kueue_queue" "tpu7x" {
  cluster = var.cluster
  name    = "tpu7x-cluster-queue"
  flavors = [
    {
      name        = "tpu7x-default-cpu"
      node_labels = { "cloud.google.com/gke-nodepool" = "default-pool" }
      quotas      = { cpu = "10", memory = "20Gi", "google.com/tpu" = "0" }
    },
    {
      name        = "tpu7x-on-demand"
      node_labels = dwsfallback_tpu_pool_pair.tpu7x.on_demand.node_labels
      quotas      = { cpu = "40", memory = "75Gi", "google.com/tpu" = tostring(dwsfallback_tpu_pool_pair.tpu7x.chips_per_slice) }
    },
    {
      name         = "tpu7x-dws"
      node_labels  = dwsfallback_tpu_pool_pair.tpu7x.flex_start.node_labels
      quotas       = { cpu = "1000000000", memory = "1000000000Gi", "google.com/tpu" = "1000000000" }
      provisioning = { admission_check = "tpu7x-dws-prov", config = "tpu7x-dws-config" }
    },
  ]
  local_queues = [{ namespace = "default", name = "tpu7x-user-queue" }]
}

resource "dwsfallback_rayjob" "train" {
  cluster     = var.cluster
  name        = "rayjob-tpu7x"
  queue       = "tpu7x-user-queue"
  elastic     = true
  entrypoint  = "python /app/train.py"
  files       = { "train.py" = file("${path.module}/../tutorial/train.py") }
  runtime_env = { pip = ["jax[tpu]==0.8.2"] }
  image       = "rayproject/ray:2.53.0-py311"
  head        = { cpu = "2", memory = "4Gi", node_selector = { "cloud.google.com/gke-nodepool" = "default-pool" } }
  tpu_workers = {
    accelerator    = dwsfallback_tpu_pool_pair.tpu7x.tpu_accelerator
    topology       = dwsfallback_tpu_pool_pair.tpu7x.tpu_topology
    chips_per_node = dwsfallback_tpu_pool_pair.tpu7x.chips_per_node
    cpu            = "8"
    memory         = "16Gi"
  }
  wait_for   = "running"
  depends_on = [dwsfallback_kueue_queue.tpu7x]
}

output "placement" {
  value = { flavor = dwsfallback_rayjob.train.admitted_flavor, nodes = dwsfallback_rayjob.train.nodes_by_pool }
}
