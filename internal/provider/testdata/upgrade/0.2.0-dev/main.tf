# What the 0.2.0 development line applied at 88358d0 for the upgrade fixture beside it: pool pairs with the settings
# that line added (node identity, labels, tags, taints, plan B's run limit), before the boot disk, gVNIC and
# lifecycle attributes, which an upgrade must read without planning a change. The cluster is in us-east5-a, the one
# zone on record offering both v6e and v5p (the line applied it in us-east5-b, which lacks v5p; the state's location
# was moved with it).

provider "dwsfallback" {
  location = "us-east5-a"
}

resource "dwsfallback_cluster" "c" {
  name                = "upg2"
  deletion_protection = false
}

resource "dwsfallback_tpu_pool_pair" "min" {
  cluster      = dwsfallback_cluster.c.name
  machine_type = "ct6e-standard-4t"
  tpu_topology = "4x4"
  max_nodes    = 4
  on_demand    = { name = "upg2-od" }
  flex_start   = { name = "upg2-dws" }
}

resource "dwsfallback_tpu_pool_pair" "team" {
  cluster         = dwsfallback_cluster.c.name
  machine_type    = "ct5p-hightpu-4t"
  tpu_topology    = "2x2x1"
  max_nodes       = 2
  service_account = "tpu-nodes@dwsfallback-local.iam.gserviceaccount.com"
  oauth_scopes    = ["https://www.googleapis.com/auth/cloud-platform"]
  resource_labels = { team = "ml" }
  network_tags    = ["tpu"]
  labels          = { team = "ml" }
  taints          = [{ key = "dedicated", value = "ml", effect = "NO_SCHEDULE" }]
  on_demand       = { name = "upg2-od-team" }
  flex_start      = { name = "upg2-dws-team", max_run_duration = "86400s" }
}

resource "dwsfallback_gpu_pool_pair" "min" {
  cluster      = dwsfallback_cluster.c.name
  machine_type = "a3-highgpu-8g"
  max_nodes    = 2
  on_demand    = { name = "upg2-gpu-od" }
  flex_start   = { name = "upg2-gpu-dws" }
}
