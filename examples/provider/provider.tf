terraform {
  required_providers {
    dwsfallback = {
      source = "dwsfallback/dwsfallback"
    }
  }
}

# Credentials come from the environment Google users already have (GOOGLE_OAUTH_ACCESS_TOKEN, GOOGLE_CREDENTIALS or
# Application Default Credentials). container_endpoint points the provider at the local GKE emulator instead of Google.
provider "dwsfallback" {
  project  = "my-project"
  location = "us-east5-b"
}
