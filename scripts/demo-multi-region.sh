#!/usr/bin/env bash
# Fallback across regions on the local stack: examples/multi-region makes a MultiKueue manager and two worker clusters
# (each its own control plane), each worker with the tutorial's DWS pool pair and queue. The first worker's DWS never
# finds capacity; the jobs submitted to the manager run in the second worker.
set -euo pipefail
. "$(dirname "$0")/demo-env.sh"
work=$local_dir/demo-multi-region
mkdir -p "$work/multi-region" "$work/tutorial"
cp "$top"/examples/multi-region/*.tf "$work/multi-region/"
cp "$top"/examples/tutorial/*.py "$work/tutorial/"
vars=(-var deletion_protection=false)
cd "$work/multi-region"

# dws sets what the simulated DWS does for one cluster's ProvisioningRequests, on the GKE emulator's admin API.
dws() {
  curl -fsS -X POST -H 'Content-Type: application/json' -d "{\"cluster\": \"$1\", \"mode\": \"$2\", \"delay\": \"$3\"}" \
    "$DWSFALLBACK_CONTAINER_ENDPOINT/emulator/v1/dws"
}

if [[ ${1:-} == destroy ]]; then
  terraform apply -destroy -auto-approve -input=false "${vars[@]}"
  exit 0
fi

step() { printf '\n==> %s\n' "$*"; }
step "Manager and worker clusters, each worker with plan A and plan B, MultiKueue on the manager: terraform apply examples/multi-region -var jobs=0"
echo "    every emulated cluster gets a control plane of its own on its first Kubernetes request (about a minute each here)"
terraform apply -auto-approve -input=false "${vars[@]}" -var jobs=0 >"$work/apply-0.log" || { cat "$work/apply-0.log"; exit 1; }
step "DWS never finds TPU capacity in tpu-worker-a's zone, and does in tpu-worker-b's"
echo '    POST /emulator/v1/dws {"cluster": "tpu-worker-a", "mode": "pending"}, {"cluster": "tpu-worker-b", "mode": "provision"}'
dws tpu-worker-a pending 0s
dws tpu-worker-b provision 3s
step "Two training jobs submitted to the manager: terraform apply examples/multi-region"
terraform apply -auto-approve -input=false "${vars[@]}" >"$work/apply.log" || { cat "$work/apply.log"; exit 1; }
echo "    dispatched_to: each job's worker, the first that admitted it"
terraform output dispatched_to | sed 's/^/    /'
step "Each cluster's own view (gcloud container clusters get-credentials: one context per cluster)"
export KUBECONFIG=$work/kubeconfig
gcloud container clusters get-credentials multikueue-manager --location=us-east5-b -q >/dev/null 2>&1
gcloud container clusters get-credentials tpu-worker-a --location=us-east5-a -q >/dev/null 2>&1
gcloud container clusters get-credentials tpu-worker-b --location=us-east5-b -q >/dev/null 2>&1
for c in multikueue-manager tpu-worker-a tpu-worker-b; do
  ctx=gke_${GOOGLE_PROJECT}_$([[ $c == tpu-worker-a ]] && echo us-east5-a || echo us-east5-b)_$c
  echo "    $c: workloads (cluster name) and RayJobs"
  kubectl --context "$ctx" get workloads -o custom-columns='WORKLOAD:.metadata.name,ADMITTED:.status.conditions[?(@.type=="Admitted")].status,CLUSTER:.status.clusterName' 2>&1 | sed 's/^/    /'
  kubectl --context "$ctx" get rayjobs -o custom-columns='RAYJOB:.metadata.name,DEPLOYMENT:.status.jobDeploymentStatus' 2>&1 | sed 's/^/    /'
done
cat <<TXT

Look around (in this shell: . .local/env; export CLOUDSDK_CONFIG=.local/gcloud KUBECONFIG=.local/demo-multi-region/kubeconfig):
  kubectl config get-contexts                                  # one context per emulated cluster
  kubectl --context gke_${GOOGLE_PROJECT}_us-east5-b_multikueue-manager get multikueueclusters,admissionchecks
  kubectl --context gke_${GOOGLE_PROJECT}_us-east5-b_tpu-worker-b get pods -o wide
  terraform -chdir=.local/demo-multi-region/multi-region plan   # no changes
Clean up: make demo-multi-region-destroy && make local-down
TXT
