# A multi-host TPU7x (Ironwood) pair in us-central1-c (the zone on record that offers TPU7x): 2x2x2 slices of two
# 4-chip nodes, placed by a workload policy made with
# gcloud compute resource-policies create workload-policy tpu7x-2x2x2 --type=HIGH_THROUGHPUT --accelerator-topology=2x2x2
resource "dwsfallback_tpu_pool_pair" "tpu7x" {
  cluster          = "tpu-cluster"
  location         = "us-central1-c"
  machine_type     = "tpu7x-standard-4t"
  tpu_topology     = "2x2x2"
  placement_policy = "tpu7x-2x2x2"
  max_nodes        = 2

  on_demand  = { name = "tpu7x-on-demand" }
  flex_start = { name = "tpu7x-dws" }
}
