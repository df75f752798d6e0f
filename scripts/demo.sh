#!/usr/bin/env bash
# Runs the tutorial against the local stack: one terraform apply of examples/tutorial makes the cluster, the two TPU
# node pools, the Kueue queue and two training jobs; gcloud verifies flex-start (the tutorial's step 4) against the
# same GKE emulator. Then examples/capacity-fallback runs the same jobs on a ComputeClass while plan A's zone has no
# capacity: they run on plan B's flex-start pool.
set -euo pipefail
. "$(dirname "$0")/demo-env.sh"
work=$local_dir/demo
mkdir -p "$work"
cp "$top"/examples/tutorial/*.tf "$top"/examples/tutorial/*.py "$work/"
# examples/capacity-fallback reads the tutorial's script from ../tutorial.
capacity=$local_dir/demo-capacity
mkdir -p "$capacity/capacity-fallback" "$capacity/tutorial"
cp "$top"/examples/capacity-fallback/*.tf "$capacity/capacity-fallback/"
cp "$top"/examples/tutorial/*.py "$capacity/tutorial/"
capacity_vars=(-var deletion_protection=false -var install_kueue=false)
cd "$work"

# stockout plays a zone without capacity for the pool's scale-ups, on the GKE emulator's admin API.
stockout() {
  curl -fsS -X POST -H 'Content-Type: application/json' -d "{\"pool\": \"$1\", \"mode\": \"$2\"}" \
    "$DWSFALLBACK_CONTAINER_ENDPOINT/emulator/v1/scaleUpStockouts"
}

if [[ ${1:-} == destroy ]]; then
  terraform -chdir="$capacity/capacity-fallback" apply -destroy -auto-approve -input=false "${capacity_vars[@]}"
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
step "Capacity fallback (GKE ComputeClass): plan A's zone out of capacity, terraform apply examples/capacity-fallback"
# Plan A is a pool per job (a multi-host slice pool holds one slice): a zone out of capacity stocks out both.
echo "    POST /emulator/v1/scaleUpStockouts {\"pool\": \"on-demand-pool\", \"mode\": \"on\"} (and on-demand-pool-2): every scale-up of plan A's pools fails"
stockout on-demand-pool on
stockout on-demand-pool-2 on
trap 'stockout on-demand-pool off; stockout on-demand-pool-2 off' EXIT
terraform -chdir="$capacity/capacity-fallback" apply -auto-approve -input=false "${capacity_vars[@]}" >"$capacity/apply.log" ||
  { cat "$capacity/apply.log"; exit 1; }
stockout on-demand-pool off
stockout on-demand-pool-2 off
trap - EXIT
echo "    nodes_by_pool: each job's TPU workers on flex-start-pool (plan B), heads on default-pool"
terraform -chdir="$capacity/capacity-fallback" output nodes_by_pool | sed 's/^/    /'
echo "    ComputeClass tpu-fallback on capacity-cluster (a control plane of its own), as GKE's autoscaler reports it:"
KUBECONFIG=$capacity/kubeconfig gcloud container clusters get-credentials capacity-cluster --location=us-east5-b -q >/dev/null 2>&1
KUBECONFIG=$capacity/kubeconfig kubectl get computeclass tpu-fallback -o go-template='{{range .status.priorityStatuses}}      priority {{.identifier}}: {{if .conditions}}{{range .conditions}}{{.type}} {{.reason}}: {{.message}}{{end}}{{else}}not backed off{{end}}{{"\n"}}{{end}}'

cat <<TXT

Look around (in this shell: . .local/env; export CLOUDSDK_CONFIG=.local/gcloud):
  gcloud container node-pools list --cluster=tpu-cluster --location=us-east5-b
  kubectl get clusterqueues,localqueues,admissionchecks -A   # KUBECONFIG comes from .local/env
  kubectl get workloads -o wide                               # job 1 on on-demand, job 2 on dws (after dws-prov)
  kubectl get pods -o wide                                    # workers on on-demand-pool and dws-pool nodes, heads on default-pool
  kubectl get nodes -L cloud.google.com/gke-nodepool          # nodes the emulator added, as GKE's autoscaler and DWS would
  kubectl describe node -l cloud.google.com/gke-nodepool=dws-pool | grep Taints   # cloud.google.com/gke-queued
  terraform -chdir=.local/demo plan        # no changes
  KUBECONFIG=.local/demo-capacity/kubeconfig kubectl get computeclass tpu-fallback -o yaml   # capacity-cluster's: priorities and status
  KUBECONFIG=.local/demo-capacity/kubeconfig kubectl get nodes -L cloud.google.com/gke-nodepool,cloud.google.com/compute-class
Clean up: make demo-destroy && make local-down
TXT
