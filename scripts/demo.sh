#!/usr/bin/env bash
# Runs the tutorial against the local stack: one terraform apply of examples/tutorial makes the cluster, the two TPU
# node pools, the Kueue queue and two training jobs; gcloud verifies flex-start (the tutorial's step 4) against the
# same GKE emulator.
set -euo pipefail
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
gcloud config set core/project "$GOOGLE_PROJECT" -q >/dev/null 2>&1
work=$local_dir/demo
mkdir -p "$work"
cp "$top"/examples/tutorial/*.tf "$top"/examples/tutorial/*.py "$work/"
cd "$work"

if [[ ${1:-} == destroy ]]; then
  terraform apply -destroy -auto-approve -input=false -var deletion_protection=false -var install_kueue=false
  echo "nodes left: $(kubectl get nodes --no-headers 2>/dev/null | wc -l)"
  exit 0
fi

step() { printf '\n==> %s\n' "$*"; }
step "1-7. Cluster, TPU pools (plan A on demand, plan B DWS), Kueue queue and two training jobs: terraform apply examples/tutorial"
echo "    GKE: the emulator at $DWSFALLBACK_CONTAINER_ENDPOINT; Kubernetes: the local control plane with the real Kueue"
terraform apply -auto-approve -input=false -var deletion_protection=false -var install_kueue=false
step "4. Verify flex-start (gcloud): prints True"
gcloud container node-pools describe dws-pool --cluster=tpu-cluster --location=us-east5-b --format="get(config.flexStart)"
step "Where the pods run (kwok plays the nodes' kubelets: no container runs, so no training output)"
# A pod's pool is its node's, which covers the pods that select none (the jobs' submitters, on default-pool).
kubectl get nodes -L cloud.google.com/gke-nodepool --no-headers | awk '{print $1, $NF}' >"$work/node-pools"
kubectl get pods --no-headers -o custom-columns='POD:.metadata.name,NODE:.spec.nodeName,STATUS:.status.phase' --sort-by=.spec.nodeName |
  awk -v pools="$work/node-pools" 'BEGIN { while ((getline l < pools) > 0) { split(l, f, " "); pool[f[1]] = f[2] }
    printf "%-52s %-16s %-44s %s\n", "POD", "NODE POOL", "NODE", "STATUS" }
    { p = ($2 in pool) ? pool[$2] : "(not scheduled)"; printf "%-52s %-16s %-44s %s\n", $1, p, $2, $3 }'
awk '{print $2}' "$work/node-pools" | sort | uniq -c | awk '{printf "  %s nodes in %s\n", $1, $2}'
cat <<TXT

Look around (in this shell: . .local/env; export CLOUDSDK_CONFIG=.local/gcloud):
  gcloud container node-pools list --cluster=tpu-cluster --location=us-east5-b
  kubectl get clusterqueues,localqueues,admissionchecks -A   # KUBECONFIG comes from .local/env
  kubectl get workloads -o wide                               # job 1 on on-demand, job 2 on dws (after dws-prov)
  kubectl get pods -o wide                                    # workers on on-demand-pool and dws-pool nodes, heads on default-pool
  kubectl get nodes -L cloud.google.com/gke-nodepool          # nodes the emulator added, as GKE's autoscaler and DWS would
  kubectl describe node -l cloud.google.com/gke-nodepool=dws-pool | grep Taints   # cloud.google.com/gke-queued
  terraform -chdir=.local/demo plan        # no changes
Clean up: make demo-destroy && make local-down
TXT
