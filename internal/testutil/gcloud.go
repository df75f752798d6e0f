// Package testutil runs the real gcloud CLI against a GKE emulator for fidelity tests.
package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Gcloud is the gcloud CLI configured for one emulator, with a config folder of its own.
type Gcloud struct {
	t      *testing.T
	env    []string
	Binary string
}

// NewGcloud points gcloud at endpoint (the emulator's URL) for project, sending token as its OAuth token. It fails
// the test when gcloud is missing: the fidelity tests exist to run it.
func NewGcloud(t *testing.T, endpoint, project, token string) *Gcloud {
	t.Helper()
	RequireAcceptance(t)
	bin, err := exec.LookPath("gcloud")
	if err != nil {
		t.Fatalf("gcloud is not installed; the GKE emulator's fidelity tests need the real CLI (Debian package google-cloud-cli): %v", err)
	}
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	g := &Gcloud{t: t, Binary: bin, env: append(os.Environ(), "CLOUDSDK_CONFIG="+filepath.Join(dir, "config"),
		"CLOUDSDK_CORE_DISABLE_PROMPTS=1", "CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK=1", "CLOUDSDK_CORE_DISABLE_USAGE_REPORTING=1")}
	for _, kv := range [][2]string{
		{"auth/access_token_file", tokenFile},
		{"api_endpoint_overrides/container", strings.TrimSuffix(endpoint, "/") + "/"},
		{"api_endpoint_overrides/serviceusage", strings.TrimSuffix(endpoint, "/") + "/"},
		// The emulator's Compute Engine reservations (gcloud compute reservations create|describe|delete).
		{"api_endpoint_overrides/compute", strings.TrimSuffix(endpoint, "/") + "/compute/v1/"},
		{"core/project", project},
	} {
		g.Run("config", "set", kv[0], kv[1])
	}
	return g
}

// Setenv adds KEY=VALUE settings to gcloud's environment, e.g. the KUBECONFIG that get-credentials writes.
func (g *Gcloud) Setenv(kv ...string) { g.env = append(g.env, kv...) }

// Environ is gcloud's environment, for the commands that call back into it (kubectl's gke-gcloud-auth-plugin).
func (g *Gcloud) Environ() []string { return append([]string(nil), g.env...) }

// Run runs gcloud with args and returns its standard output; a failure fails the test with gcloud's output.
func (g *Gcloud) Run(args ...string) string {
	g.t.Helper()
	out, err := g.Try(args...)
	if err != nil {
		g.t.Fatalf("gcloud %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// Try runs gcloud with args and returns its combined output and error.
func (g *Gcloud) Try(args ...string) (string, error) {
	cmd := exec.Command(g.Binary, args...)
	cmd.Env = g.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TutorialPools are the tutorial's two node-pool commands, verbatim, for a cluster in us-east5-b.
func TutorialPools(cluster, onDemand, dws string) [][]string {
	return [][]string{
		{"container", "node-pools", "create", onDemand, "--cluster=" + cluster, "--location=us-east5-b",
			"--machine-type=ct6e-standard-4t", "--tpu-topology=4x4", "--reservation-affinity=none", "--enable-autoscaling",
			"--num-nodes=0", "--min-nodes=0", "--max-nodes=4"},
		{"container", "node-pools", "create", dws, "--cluster=" + cluster, "--location=us-east5-b",
			"--machine-type=ct6e-standard-4t", "--tpu-topology=4x4", "--enable-autoscaling", "--enable-queued-provisioning",
			"--flex-start", "--num-nodes=0", "--min-nodes=0", "--max-nodes=4"},
	}
}

// ReservationPools are the tutorial's two commands with plan A on a specific reservation and plan B's VMs run for
// at most a day, one 4x4 slice each.
func ReservationPools(cluster, onDemand, dws, reservation string) [][]string {
	return [][]string{
		{"container", "node-pools", "create", onDemand, "--cluster=" + cluster, "--location=us-east5-b",
			"--machine-type=ct6e-standard-4t", "--tpu-topology=4x4", "--reservation-affinity=specific", "--reservation=" + reservation,
			"--enable-autoscaling", "--num-nodes=0", "--min-nodes=0", "--max-nodes=4"},
		{"container", "node-pools", "create", dws, "--cluster=" + cluster, "--location=us-east5-b",
			"--machine-type=ct6e-standard-4t", "--tpu-topology=4x4", "--enable-autoscaling", "--enable-queued-provisioning",
			"--flex-start", "--num-nodes=0", "--min-nodes=0", "--max-nodes=4", "--max-run-duration=86400s"},
	}
}

// NodeSettingsPools are the tutorial's two commands with a team's node settings on both pools: service account,
// resource labels, network tags, node labels and taints, and on plan B the scopes of the service account.
func NodeSettingsPools(cluster, onDemand, dws, serviceAccount string) [][]string {
	settings := []string{"--service-account=" + serviceAccount, "--labels=team=ml,cost-center=42", "--tags=tpu,ml",
		"--node-labels=team=ml", "--node-taints=dedicated=ml:NoSchedule", "--disk-type=hyperdisk-balanced", "--disk-size=200", "--enable-gvnic"}
	pools := TutorialPools(cluster, onDemand, dws)
	pools[0] = append(pools[0], settings...)
	pools[1] = append(append(pools[1], settings...), "--scopes=cloud-platform")
	return pools
}

// UnqueuedFlexStartPool is GKE's "Run a small batch workload with TPUs and flex-start" command (flex-start VMs
// without queued provisioning) with the tutorial's machine type, topology and bounds, for a cluster in us-east5-b.
func UnqueuedFlexStartPool(cluster, pool string) []string {
	return []string{"container", "node-pools", "create", pool, "--cluster=" + cluster, "--location=us-east5-b",
		"--machine-type=ct6e-standard-4t", "--tpu-topology=4x4", "--reservation-affinity=none", "--enable-autoscaling",
		"--flex-start", "--num-nodes=0", "--min-nodes=0", "--max-nodes=4"}
}

// TutorialCluster is the tutorial's cluster command, verbatim.
func TutorialCluster(cluster, project string) []string {
	return []string{"container", "clusters", "create", cluster, "--cluster-version=1.34", "--machine-type=n2-standard-16",
		"--location=us-east5-b", "--enable-image-streaming", "--addons=RayOperator", "--project=" + project}
}

// RequireAcceptance skips a test that needs more than Go (the local stack's binaries, etcd, gcloud, terraform) unless
// TF_ACC is set, as `make test` sets it: `make unit` runs on a machine with Go alone.
func RequireAcceptance(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the local stack, gcloud or terraform: set TF_ACC=1 (make test does)")
	}
}

// GPUPools are plan A and plan B for GPUs in us-east5-b: the on-demand pool as the tutorial's plan A with the GPU
// accelerator, and the DWS docs' command ("Run a large-scale workload with flex-start with queued provisioning")
// verbatim. flexStart false drops --flex-start, as that page's earlier version (queued provisioning alone) had it.
func GPUPools(cluster, onDemand, dws, machineType, accelerator string, flexStart bool) [][]string {
	plan := []string{"container", "node-pools", "create", dws, "--cluster=" + cluster, "--location=us-east5-b",
		"--enable-queued-provisioning", "--accelerator", accelerator, "--machine-type=" + machineType}
	if flexStart {
		plan = append(plan, "--flex-start")
	}
	plan = append(plan, "--enable-autoscaling", "--num-nodes=0", "--total-max-nodes", "4", "--location-policy=ANY",
		"--reservation-affinity=none", "--no-enable-autorepair")
	return [][]string{
		{"container", "node-pools", "create", onDemand, "--cluster=" + cluster, "--location=us-east5-b",
			"--accelerator", accelerator, "--machine-type=" + machineType, "--reservation-affinity=none",
			"--enable-autoscaling", "--num-nodes=0", "--min-nodes=0", "--max-nodes=4"},
		plan,
	}
}

// TPU7xPools are the tutorial's two pools for a multi-host TPU7x slice placed by a workload policy (GKE "About
// Ironwood (TPU7x) in GKE": --placement-policy), with --tpu-topology kept as Google's TPU7x recipes pass it.
func TPU7xPools(cluster, location, onDemand, dws, topology, policy string, maxNodes int) [][]string {
	common := []string{"--cluster=" + cluster, "--location=" + location, "--machine-type=tpu7x-standard-4t",
		"--tpu-topology=" + topology, "--placement-policy=" + policy}
	maxFlag := fmt.Sprintf("--max-nodes=%d", maxNodes)
	return [][]string{
		append(append([]string{"container", "node-pools", "create", onDemand}, common...),
			"--reservation-affinity=none", "--enable-autoscaling", "--num-nodes=0", "--min-nodes=0", maxFlag),
		append(append([]string{"container", "node-pools", "create", dws}, common...),
			"--enable-autoscaling", "--enable-queued-provisioning", "--flex-start", "--num-nodes=0", "--min-nodes=0", maxFlag),
	}
}
