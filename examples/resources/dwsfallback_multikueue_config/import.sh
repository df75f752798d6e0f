# The MultiKueueConfig and its AdmissionCheck of the same name import together.
terraform import dwsfallback_multikueue_config.regions projects/my-project/locations/us-central1/clusters/manager/multiKueueConfigs/multikueue
