# The jobs repo: a state of its own that reads the infra state's outputs.
terraform {
  required_providers {
    dwsfallback = { source = "dwsfallback/dwsfallback" }
  }
}

provider "dwsfallback" {}

variable "cluster" {
  type = string
}

variable "jobs" {
  type = map(object({ team = string, generation = string }))
}

data "terraform_remote_state" "infra" {
  backend = "local"
  config  = { path = "../infra/terraform.tfstate" }
}

module "jobs" {
  source  = "../modules/jobs"
  cluster = var.cluster
  slices  = data.terraform_remote_state.infra.outputs.slices
  queues  = data.terraform_remote_state.infra.outputs.queues
  jobs    = var.jobs
  worker  = { cpu = "4", memory = "8Gi" }
  script  = file("${path.module}/train.py")
}

output "admitted_flavors" {
  value = module.jobs.admitted_flavors
}
