# A MultiKueueCluster is cluster-scoped on the manager: its id is the manager cluster's id and its name. The worker
# cluster is found by the endpoint its kubeconfig Secret reaches.
terraform import 'dwsfallback_multikueue_worker.workers["worker-us"]' projects/my-project/locations/us-central1/clusters/manager/multiKueueClusters/worker-us
