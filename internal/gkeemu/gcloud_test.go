package gkeemu_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// TestGcloudTutorial runs the tutorial's gcloud commands verbatim against the emulator, then the commands a person
// uses to change pools by hand (how drift happens), and checks what gcloud prints.
func TestGcloudTutorial(t *testing.T) {
	emu := gkeemu.New(gkeemu.Options{OperationDelay: 100 * time.Millisecond, Tokens: []string{"gcloud-token"}})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	g := testutil.NewGcloud(t, srv.URL, "tutorial-project", "gcloud-token")

	g.Run(testutil.TutorialCluster("tpu-cluster", "tutorial-project")...)
	for _, cmd := range testutil.TutorialPools("tpu-cluster", "on-demand-pool", "dws-pool") {
		g.Run(cmd...)
	}
	if got := strings.TrimSpace(g.Run("container", "node-pools", "describe", "dws-pool", "--cluster=tpu-cluster",
		"--location=us-east5-b", `--format=get(config.flexStart)`)); got != "True" {
		t.Errorf("flexStart of dws-pool = %q, want True (the tutorial's verification step)", got)
	}
	desc := g.Run("container", "node-pools", "describe", "on-demand-pool", "--cluster=tpu-cluster", "--location=us-east5-b",
		"--format=value(config.machineType,placementPolicy.tpuTopology,autoscaling.maxNodeCount,config.reservationAffinity.consumeReservationType,status)")
	if got, want := strings.Join(strings.Fields(desc), " "), "ct6e-standard-4t 4x4 4 NO_RESERVATION RUNNING"; got != want {
		t.Errorf("describe on-demand-pool = %q, want %q", got, want)
	}
	list := g.Run("container", "node-pools", "list", "--cluster=tpu-cluster", "--location=us-east5-b", "--format=value(name)")
	if got, want := strings.Fields(list), []string{"default-pool", "on-demand-pool", "dws-pool"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("node-pools list = %v, want %v", got, want)
	}
	cluster := g.Run("container", "clusters", "describe", "tpu-cluster", "--location=us-east5-b",
		"--format=value(addonsConfig.rayOperatorConfig.enabled,nodePoolDefaults.nodeConfigDefaults.gcfsConfig.enabled,currentMasterVersion,status)")
	if got := strings.Fields(cluster); len(got) != 4 || got[0] != "True" || got[1] != "True" || !strings.HasPrefix(got[2], "1.34.") || got[3] != "RUNNING" {
		t.Errorf("clusters describe = %q, want RayOperator and image streaming on, version 1.34.x, RUNNING", cluster)
	}

	// Changes by hand, the way drift happens in real life.
	g.Run("container", "node-pools", "update", "on-demand-pool", "--cluster=tpu-cluster", "--location=us-east5-b",
		"--enable-autoscaling", "--min-nodes=4", "--max-nodes=4")
	got := g.Run("container", "node-pools", "list", "--cluster=tpu-cluster", "--location=us-east5-b", "--format=value(name,autoscaling.minNodeCount)")
	if strings.Join(strings.Fields(got), " ") != "default-pool on-demand-pool 4 dws-pool" {
		t.Errorf("after the by-hand update, pools = %q", got)
	}
	// A second slice in a multi-host pool, which GKE refuses (vllm-project/ci-infra#545 quotes its words).
	out, err := g.Try("container", "clusters", "update", "tpu-cluster", "--node-pool=dws-pool", "--location=us-east5-b",
		"--enable-autoscaling", "--min-nodes=0", "--max-nodes=8")
	// This gcloud command prints the status name where node-pools create prints code=400.
	if err == nil || !strings.Contains(out, "INVALID_ARGUMENT") || !strings.Contains(out, `Maximum node count 8 is not a valid size of TPU pod slice with topology`) {
		t.Errorf("max-nodes 8 on a 4-node slice pool: err=%v, output %q; want GKE's 400", err, out)
	}
	// A field nothing here sets at creation, which GKE changes in place all the same.
	g.Run("container", "node-pools", "update", "on-demand-pool", "--cluster=tpu-cluster", "--location=us-east5-b",
		"--workload-metadata=GCE_METADATA")
	if got := strings.TrimSpace(g.Run("container", "node-pools", "describe", "on-demand-pool", "--cluster=tpu-cluster",
		"--location=us-east5-b", "--format=value(config.workloadMetadataConfig.mode)")); got != "GCE_METADATA" {
		t.Errorf("after --workload-metadata=GCE_METADATA, the pool's mode is %q", got)
	}

	// GKE's validation, as gcloud shows it.
	out, err = g.Try("container", "node-pools", "create", "bad-pool", "--cluster=tpu-cluster", "--location=us-east5-b",
		"--machine-type=ct6e-standard-4t", "--tpu-topology=4x4", "--enable-autoscaling", "--min-nodes=0", "--max-nodes=5")
	if err == nil || !strings.Contains(out, "code=400") || !strings.Contains(out, "Maximum node count 5 is not a valid size") {
		t.Errorf("max-nodes 5 on a 4-node slice: err=%v, output %q; want GKE's 400", err, out)
	}
	out, err = g.Try("container", "node-pools", "create", "dws-pool", "--cluster=tpu-cluster", "--location=us-east5-b",
		"--machine-type=ct6e-standard-4t", "--tpu-topology=4x4", "--num-nodes=0")
	if err == nil || !strings.Contains(out, "code=409") {
		t.Errorf("duplicate pool: err=%v, output %q; want a 409", err, out)
	}

	g.Run("container", "node-pools", "delete", "dws-pool", "--cluster=tpu-cluster", "--location=us-east5-b", "--quiet")
	out, err = g.Try("container", "node-pools", "describe", "dws-pool", "--cluster=tpu-cluster", "--location=us-east5-b")
	if err == nil || !strings.Contains(out, "code=404") {
		t.Errorf("describe of a deleted pool: err=%v, output %q; want a 404", err, out)
	}
	g.Run("container", "clusters", "delete", "tpu-cluster", "--location=us-east5-b", "--project=tutorial-project", "--quiet")
	if calls := emu.Calls(); calls["GetService"] < 2 || calls["CreateNodePool"] < 2 {
		t.Errorf("calls = %v; want gcloud's Service Usage checks and both pool creations served", calls)
	}
}
