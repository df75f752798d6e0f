# Every workload of the queue and where the fallback put it.
data "dwsfallback_workloads" "queue" {
  cluster       = "tpu-cluster"
  cluster_queue = "cluster-queue"
}

output "flavors" {
  value = { for w in data.dwsfallback_workloads.queue.workloads : w.name => w.admitted_flavor }
}
