# Worker clusters in two of the zones where GKE offers v6e flex-start, each running Kueue with the tutorial's DWS
# pool pair and queue; the manager sends them jobs.
resource "dwsfallback_multikueue_worker" "workers" {
  for_each = {
    "worker-us"   = "projects/my-project/locations/us-east5-b/clusters/tpu-worker-us"
    "worker-asia" = "projects/my-project/locations/asia-northeast1-b/clusters/tpu-worker-asia"
  }
  cluster        = "projects/my-project/locations/us-central1/clusters/manager"
  name           = each.key
  worker_cluster = each.value
}
