# Sourced by the demo scripts: the local stack's environment, terraform with the locally built provider
# (dev_overrides: no registry access), and gcloud pointed at the GKE emulator. Sets top and local_dir.
top=$(cd "$(dirname "$0")/.." && pwd)
local_dir=$top/.local
. "$local_dir/env"
cat >"$local_dir/terraformrc" <<RC
provider_installation {
  dev_overrides {
    "dwsfallback/dwsfallback" = "$local_dir/bin"
  }
  direct {}
}
RC
export TF_CLI_CONFIG_FILE=$local_dir/terraformrc
export CLOUDSDK_CONFIG=$local_dir/gcloud
mkdir -p "$CLOUDSDK_CONFIG"
printf %s "$GOOGLE_OAUTH_ACCESS_TOKEN" >"$local_dir/gcloud-token"
chmod 600 "$local_dir/gcloud-token"
gcloud config set auth/access_token_file "$local_dir/gcloud-token" -q >/dev/null 2>&1
gcloud config set api_endpoint_overrides/container "$DWSFALLBACK_CONTAINER_ENDPOINT/" -q >/dev/null 2>&1
gcloud config set api_endpoint_overrides/serviceusage "$DWSFALLBACK_CONTAINER_ENDPOINT/" -q >/dev/null 2>&1
gcloud config set api_endpoint_overrides/compute "$DWSFALLBACK_CONTAINER_ENDPOINT/compute/v1/" -q >/dev/null 2>&1
gcloud config set core/project "$GOOGLE_PROJECT" -q >/dev/null 2>&1
