# What version 0.1.0 applied for the Kueue install's upgrade fixture beside it, after a provider block that reaches
# a control plane of its own through the kubernetes block: the install as a platform module writes it (settings left
# to their defaults), but for the chart, which the local stack has as a folder (CHART_DIR), no wait (nothing runs
# Kueue's Deployment there), and values, read back since.
resource "dwsfallback_kueue_install" "kueue" {
  chart  = "CHART_DIR"
  wait   = false
  values = yamlencode({ enablePrometheus = false })
}
