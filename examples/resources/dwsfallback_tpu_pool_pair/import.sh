# The on-demand pool first, then the flex-start pool.
terraform import dwsfallback_tpu_pool_pair.v6e projects/my-project/locations/us-east5-b/clusters/tpu-cluster/nodePools/on-demand-pool,dws-pool
