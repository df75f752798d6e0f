# Plan A on a TPU reservation, plan B on DWS: the tutorial's fallback where the on-demand capacity is reserved. The
# reservation holds `reservation_slices` slices; Kueue's on-demand flavor gets exactly that quota, so the jobs that
# fit on the reservation run there and every further job falls back to the DWS pool instead of waiting for a VM the
# reservation cannot give. Make the reservation first, in the cluster's zone and of var.machine_type:
# `gcloud compute reservations create NAME --zone=ZONE --machine-type=TYPE --vm-count=VMS --require-specific-reservation`
# (on the local stack too, with gcloud's compute endpoint at the emulator), or
# `POST $DWSFALLBACK_CONTAINER_ENDPOINT/emulator/v1/reservations`.
terraform {
  required_version = ">= 1.8" # provider functions (tpu_slice)
  required_providers {
    dwsfallback = {
      source = "dwsfallback/dwsfallback"
    }
  }
}

provider "dwsfallback" {}

variable "cluster" {
  description = "Id of an existing cluster with the RayOperator add-on and Kueue, as the tutorial's step 1 and 5 make it."
  type        = string
}

variable "reservation" {
  description = "Name of the specific reservation plan A consumes (projects/OWNER/reservations/NAME for a shared one)."
  type        = string
}

variable "reservation_slices" {
  description = "How many TPU slices the reservation holds: its VM count divided by the slice's nodes."
  type        = number
  default     = 2
}

variable "jobs" {
  description = "How many training jobs to run; those past reservation_slices fall back to DWS."
  type        = number
  default     = 3
}

variable "machine_type" {
  description = "TPU machine type of both pools and of the reservation."
  type        = string
  default     = "ct6e-standard-4t"
}

locals {
  slice = provider::dwsfallback::tpu_slice(var.machine_type, "4x4")
  # The jobs the reservation takes, then the rest; both groups are submitted together within themselves.
  reserved = min(var.jobs, var.reservation_slices)
}

resource "dwsfallback_tpu_pool_pair" "v6e" {
  cluster      = var.cluster
  machine_type = var.machine_type
  tpu_topology = local.slice.topology
  max_nodes    = local.slice.nodes_per_slice
  # A multi-host slice pool holds one slice, so each slice is a pool: as many as the reservation holds, or as many as
  # the jobs that fall back need, whichever is more.
  slices = max(var.reservation_slices, var.jobs - var.reservation_slices, 1)
  on_demand = {
    name                 = "reserved-pool"
    reservation_affinity = "specific"
    reservation          = var.reservation
  }
  flex_start = { name = "dws-pool", max_run_duration = "86400s" }
}

resource "dwsfallback_kueue_queue" "tpu" {
  cluster = var.cluster
  name    = "reservation-queue"
  flavors = [
    {
      name        = "reservation-default-cpu"
      node_labels = { "cloud.google.com/gke-nodepool" = "default-pool" }
      # Each job's Ray head (2 CPUs, 4Gi) and its KubeRay submitter pod (requests 500m, 200Mi) run here.
      quotas = { cpu = tostring(max(10, 3 * var.jobs)), memory = "${max(20, 5 * var.jobs)}Gi", "google.com/tpu" = "0" }
    },
    {
      name        = "reservation"
      node_labels = dwsfallback_tpu_pool_pair.v6e.on_demand.node_labels
      # Each job's workers: one per node of its slice, 8 CPUs and 16Gi each (local.job).
      quotas = {
        cpu              = tostring(8 * local.slice.nodes_per_slice * var.reservation_slices)
        memory           = "${16 * local.slice.nodes_per_slice * var.reservation_slices}Gi"
        "google.com/tpu" = tostring(dwsfallback_tpu_pool_pair.v6e.chips_per_slice * var.reservation_slices)
      }
    },
    {
      name         = "reservation-dws"
      node_labels  = dwsfallback_tpu_pool_pair.v6e.flex_start.node_labels
      quotas       = { cpu = "1000000000", memory = "1000000000Gi", "google.com/tpu" = "1000000000" }
      provisioning = { admission_check = "reservation-dws-prov", config = "reservation-dws-config" }
    },
  ]
  local_queues = [{ namespace = "default", name = "reservation-user-queue" }]
}

locals {
  job = {
    queue       = "reservation-user-queue"
    entrypoint  = "python /app/train.py"
    files       = { "train.py" = file("${path.module}/../tutorial/train.py") }
    runtime_env = { pip = ["jax[tpu]==0.8.2", "pandas==2.3.3"] }
    image       = "rayproject/ray:2.53.0-py311"
    head        = { cpu = "2", memory = "4Gi", node_selector = { "cloud.google.com/gke-nodepool" = "default-pool" } }
    tpu_workers = {
      accelerator    = dwsfallback_tpu_pool_pair.v6e.tpu_accelerator
      topology       = dwsfallback_tpu_pool_pair.v6e.tpu_topology
      chips_per_node = dwsfallback_tpu_pool_pair.v6e.chips_per_node
      replicas       = 1
      cpu            = "8"
      memory         = "16Gi"
    }
  }
}

# Jobs 1 to reservation_slices: each fits on the reservation.
resource "dwsfallback_rayjob" "reserved" {
  count       = local.reserved
  cluster     = var.cluster
  name        = "reservation-job-${count.index + 1}"
  queue       = local.job.queue
  entrypoint  = local.job.entrypoint
  files       = local.job.files
  runtime_env = local.job.runtime_env
  image       = local.job.image
  head        = local.job.head
  tpu_workers = local.job.tpu_workers
  wait_for    = "running"
  depends_on  = [dwsfallback_kueue_queue.tpu]
}

# The rest, once the reservation is full: Kueue admits them to the DWS flavor.
resource "dwsfallback_rayjob" "fallback" {
  count       = var.jobs - local.reserved
  cluster     = var.cluster
  name        = "reservation-job-${local.reserved + count.index + 1}"
  queue       = local.job.queue
  entrypoint  = local.job.entrypoint
  files       = local.job.files
  runtime_env = local.job.runtime_env
  image       = local.job.image
  head        = local.job.head
  tpu_workers = local.job.tpu_workers
  wait_for    = "running"
  depends_on  = [dwsfallback_rayjob.reserved]
}

output "admitted_flavors" {
  description = "Each job's TPU flavor, in job order: \"reservation\" for the first reservation_slices, \"reservation-dws\" after."
  value       = concat(dwsfallback_rayjob.reserved[*].admitted_flavor, dwsfallback_rayjob.fallback[*].admitted_flavor)
}

output "nodes_by_pool" {
  description = "Job name, then node pool, then how many nodes run its Ray pods."
  value       = { for j in concat(dwsfallback_rayjob.reserved, dwsfallback_rayjob.fallback) : j.name => j.nodes_by_pool }
}
