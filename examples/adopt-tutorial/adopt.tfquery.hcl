# One query for the tutorial's setup. Each list asks for the whole resource (include_resource), so that the
# generated configuration is complete. The cluster list finds every cluster of the project in the provider's
# location, not only the tutorial's: delete from the generated file what you do not mean to manage.
variable "cluster" {
  description = "Name of the tutorial's cluster (CLUSTER_NAME in its commands)."
  type        = string
  default     = "tpu-cluster"
}

list "dwsfallback_cluster" "clusters" {
  provider         = dwsfallback
  include_resource = true
  config {}
}

list "dwsfallback_tpu_pool_pair" "pools" {
  provider         = dwsfallback
  include_resource = true
  config {
    cluster = var.cluster
  }
}

list "dwsfallback_kueue_install" "kueue" {
  provider         = dwsfallback
  include_resource = true
  config {
    cluster   = var.cluster
    namespace = "kueue-system"
  }
}

list "dwsfallback_kueue_queue" "queues" {
  provider         = dwsfallback
  include_resource = true
  config {
    cluster = var.cluster
  }
}

list "dwsfallback_rayjob" "jobs" {
  provider         = dwsfallback
  include_resource = true
  config {
    cluster   = var.cluster
    namespace = "default"
    queue     = "user-queue"
  }
}
