terraform import dwsfallback_cluster.tpu projects/my-project/locations/us-east5-b/clusters/tpu-cluster
