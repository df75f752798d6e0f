# Where a job submitted by anyone (kubectl included) stands.
data "dwsfallback_rayjob" "job" {
  cluster   = "tpu-cluster"
  namespace = "default"
  name      = "rayjob-tpu-v6e-dws-1"
}

output "placed_on" {
  value = data.dwsfallback_rayjob.job.admitted_flavor
}
