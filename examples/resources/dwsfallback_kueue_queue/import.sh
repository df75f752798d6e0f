# The flavors, admission check, config and local queues hanging off the ClusterQueue are discovered.
terraform import dwsfallback_kueue_queue.tpu projects/my-project/locations/us-east5-b/clusters/tpu-cluster/clusterQueues/cluster-queue
