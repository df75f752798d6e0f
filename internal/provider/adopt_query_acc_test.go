package provider

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// adoptZone holds the adoption test's cluster alone: the example's cluster list finds every cluster of the provider's
// location, and other tests' clusters (in us-east5-b) come and go while it runs.
const adoptZone = "us-east1-d"

// TestAccAdopt_tutorialQuery runs examples/adopt-tutorial as its README does, files as written, with a Terraform that
// has `terraform query` (1.14 on; make test-tf116 runs it under 1.16): the tutorial's cluster, pools, queue and job
// made by gcloud and kubectl with the tutorial's names, then `terraform query`, `terraform query
// -generate-config-out`, a plan of imports only, the apply, and an empty plan. A change to the query file that breaks
// adoption fails here.
func TestAccAdopt_tutorialQuery(t *testing.T) {
	requireTerraform(t, 1, 14)
	stackTest(t, 1)
	ref := clusterscope.Ref{Project: testProject, Location: adoptZone, Name: "tpu-cluster"} // the example's default
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	inZone := func(args []string) []string {
		out := make([]string, len(args))
		for i, a := range args {
			out[i] = strings.Replace(a, "--location=us-east5-b", "--location="+adoptZone, 1)
		}
		return out
	}
	g.Run(inZone(testutil.TutorialCluster(ref.Name, testProject))...)
	t.Cleanup(func() { _ = deleteCluster(gkeAPIForCheck(), ref) })
	for _, cmd := range testutil.TutorialPools(ref.Name, "on-demand-pool", "dws-pool") {
		g.Run(inZone(cmd)...)
	}
	cp := on(t, ref)
	// The tutorial's own object names (the query's job list asks for queue "user-queue").
	cp.kubectl(testdata(t, "tutorial-queue.yaml", "PREFIX-", ""), "apply", "-f", "-")
	cp.kubectl(testdata(t, "tutorial-rayjob.yaml", "PREFIX-", "", "JOB_ID", "1"), "apply", "-f", "-")
	t.Cleanup(func() { cp.kubectl("", "delete", "rayjob", "rayjob-1", "--ignore-not-found", "--wait=false") })

	// The provider as a plugin process, so that it takes the location from terraform's environment, as a user's does.
	tf := newTFRun(t, "", "GOOGLE_ZONE="+adoptZone, "GOOGLE_REGION=")
	if out, err := exec.Command("cp", "-R", "../../examples/adopt-tutorial/.", tf.dir).CombinedOutput(); err != nil {
		t.Fatalf("copying the example: %v\n%s", err, out)
	}
	out := tf.mustRun("query")
	for _, want := range []string{"list.dwsfallback_cluster.clusters", "list.dwsfallback_tpu_pool_pair.pools",
		"list.dwsfallback_kueue_queue.queues", "list.dwsfallback_rayjob.jobs", "default/rayjob-1"} {
		if !strings.Contains(out, want) {
			t.Errorf("terraform query does not show %q:\n%s", want, out)
		}
	}
	tf.mustRun("query", "-generate-config-out=generated.tf")
	generated, err := os.ReadFile(filepath.Join(tf.dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated.tf:\n%s", generated)
	tf.mustRun("validate")
	out, code := tf.planExit()
	if m := regexp.MustCompile(`Plan: (\d+) to import, 0 to add, 0 to change, 0 to destroy\.`).FindStringSubmatch(out); code != 2 || m == nil || m[1] == "0" {
		t.Fatalf("the plan after the generated configuration should only import (exit %d):\n%s", code, out)
	}
	tf.mustRun("apply", "-auto-approve", "-input=false")
	tf.expectEmptyPlan()
}
