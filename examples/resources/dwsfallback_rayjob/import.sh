# The job's ConfigMap of files is read from the volume it mounts.
terraform import dwsfallback_rayjob.train projects/my-project/locations/us-east5-b/clusters/tpu-cluster/namespaces/default/rayJobs/rayjob-tpu-v6e-dws-1
