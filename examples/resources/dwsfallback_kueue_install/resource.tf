# The tutorial's helm install of Kueue, with elastic jobs (workload slices) on.
resource "dwsfallback_kueue_install" "kueue" {
  cluster       = "tpu-cluster"
  chart         = "oci://registry.k8s.io/kueue/charts/kueue"
  chart_version = "0.17.0"
  feature_gates = { ElasticJobsViaWorkloadSlices = true }
}
