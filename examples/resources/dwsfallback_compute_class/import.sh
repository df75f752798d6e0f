# A ComputeClass is cluster-scoped: its id is the cluster's id and its name.
terraform import dwsfallback_compute_class.tpu projects/my-project/locations/us-east5-b/clusters/tpu-cluster/computeClasses/tpu-fallback
