# Adopts what the tutorial's own gcloud, helm and kubectl commands made (docs/guides/tutorial.md maps each
# command): its cluster, pool pair, Kueue install, Kueue queue and RayJobs.
# `terraform query -generate-config-out=generated.tf` (Terraform 1.14 and later) runs adopt.tfquery.hcl and writes
# an import block and a resource block for each object it finds; `terraform plan` should then plan only those
# imports. See README.md.
terraform {
  required_version = ">= 1.14" # list blocks and terraform query
  required_providers {
    dwsfallback = {
      source = "dwsfallback/dwsfallback"
    }
  }
}

# project and location from the environment (GOOGLE_PROJECT, GOOGLE_ZONE), as for the tutorial's commands.
provider "dwsfallback" {}
