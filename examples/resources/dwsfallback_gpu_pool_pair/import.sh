# The on-demand pool first, then the DWS pool.
terraform import dwsfallback_gpu_pool_pair.h100 projects/my-project/locations/us-east5-b/clusters/gpu-cluster/nodePools/gpu-on-demand,gpu-dws
