terraform import dwsfallback_kueue_install.kueue projects/my-project/locations/us-east5-b/clusters/tpu-cluster/helmReleases/kueue-system/kueue
