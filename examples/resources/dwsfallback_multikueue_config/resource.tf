resource "dwsfallback_multikueue_config" "regions" {
  cluster = "projects/my-project/locations/us-central1/clusters/manager"
  name    = "multikueue"
  workers = [for w in dwsfallback_multikueue_worker.workers : w.name]
}

# The manager's queue: quota for what may be in flight across the workers, no DWS (that is on the workers).
resource "dwsfallback_kueue_queue" "manager" {
  cluster          = "projects/my-project/locations/us-central1/clusters/manager"
  name             = "cluster-queue"
  flavors          = [{ name = "default-flavor", quotas = { cpu = "200", memory = "800Gi", "google.com/tpu" = "128" } }]
  local_queues     = [{ namespace = "default", name = "user-queue" }]
  admission_checks = [dwsfallback_multikueue_config.regions.admission_check]
}
