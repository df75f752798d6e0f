# The tutorial's dws-tpu-queue.yaml: on-demand first, DWS flex-start as the fallback.
resource "dwsfallback_kueue_queue" "tpu" {
  cluster = "tpu-cluster"
  name    = "cluster-queue"
  flavors = [
    {
      name        = "default-cpu" # the Ray head runs here
      node_labels = { "cloud.google.com/gke-nodepool" = "default-pool" }
      quotas      = { cpu = "10", memory = "20Gi", "google.com/tpu" = "0" }
    },
    {
      name        = "on-demand" # plan A
      node_labels = dwsfallback_tpu_pool_pair.v6e.on_demand.node_labels
      quotas      = { cpu = "40", memory = "75Gi", "google.com/tpu" = "16" }
    },
    {
      name         = "dws" # plan B: "infinite" quota, capacity from DWS
      node_labels  = dwsfallback_tpu_pool_pair.v6e.flex_start.node_labels
      quotas       = { cpu = "1000000000", memory = "1000000000Gi", "google.com/tpu" = "1000000000" }
      provisioning = { admission_check = "dws-prov", config = "dws-config" }
    },
  ]
  local_queues = [{ namespace = "default", name = "user-queue" }]
}
