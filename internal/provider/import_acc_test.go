package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// TestAccImport_generatedConfig is import as a contract, the way a team adopts what it made by hand: the tutorial's
// pools and the DWS docs' GPU pools (gcloud), queue and job (kubectl) are found by the lists of
// examples/adopt-tutorial's query, and imported by the ids they give with `import {}` blocks and
// `terraform plan -generate-config-out` (what `terraform query -generate-config-out` writes, in Terraform 1.11); the generated file validates, the plan shows only the imports, and after
// the apply the plan is empty. Then a queue whose ResourceFlavor was deleted: the quotas live in the ClusterQueue, so the generated
// configuration carries them and validates (their being null failed validation before), and the plan, which imports
// what is there, says the flavor is being deleted; the apply after it makes the flavor again.
func TestAccImport_generatedConfig(t *testing.T) {
	stackTest(t, 1)
	ref := createTestCluster(t, "acc-import")
	cp := on(t, ref)
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	for _, cmd := range testutil.TutorialPools("acc-import", "on-demand-pool", "dws-pool") {
		g.Run(cmd...)
	}
	for _, cmd := range testutil.GPUPools("acc-import", "gpu-od", "gpu-dws", "a3-highgpu-8g", "type=nvidia-h100-80gb,count=8,gpu-driver-version=latest", true) {
		g.Run(cmd...)
	}
	cp.kubectl(testdata(t, "tutorial-queue.yaml", "PREFIX", "imp"), "apply", "-f", "-")
	cp.kubectl(testdata(t, "tutorial-rayjob.yaml", "PREFIX", "imp", "JOB_ID", "1"), "apply", "-f", "-")
	t.Cleanup(func() { cp.kubectl("", "delete", "rayjob", "imp-rayjob-1", "--ignore-not-found", "--wait=false") })

	imports := "provider \"dwsfallback\" {}\n"
	for _, im := range adoptionQuery(t, ref, []queried{
		{"dwsfallback_cluster.c", ref.Name + " (" + testLocation + ")", ref.String()},
		{"dwsfallback_tpu_pool_pair.v6e", "TPU pools on-demand-pool and dws-pool (ct6e-standard-4t 4x4)", ref.String() + "/nodePools/on-demand-pool,dws-pool"},
		{"dwsfallback_gpu_pool_pair.h100", "GPU pools gpu-od and gpu-dws (a3-highgpu-8g)", ref.String() + "/nodePools/gpu-od,gpu-dws"},
		{"dwsfallback_kueue_queue.q", "imp-cluster-queue", ref.String() + "/clusterQueues/imp-cluster-queue"},
		{"dwsfallback_rayjob.job1", "default/imp-rayjob-1", ref.String() + "/namespaces/default/rayJobs/imp-rayjob-1"},
	}) {
		imports += fmt.Sprintf("\nimport {\n  to = %s\n  id = %q\n}\n", im.address, im.id)
	}
	tf := newTFRunInProcess(t, imports)
	tf.generate()
	t.Log("validate")
	tf.mustRun("validate")
	t.Log("plan")
	out, code := tf.planExit()
	if code != 2 || !strings.Contains(out, "Plan: 5 to import, 0 to add, 0 to change, 0 to destroy.") {
		t.Fatalf("the plan after generating the configuration should show the 5 imports only (exit %d):\n%s", code, out)
	}
	t.Log("apply")
	tf.mustRun("apply", "-auto-approve", "-input=false")
	tf.expectEmptyPlan()

	// A queue whose ResourceFlavor was deleted by hand.
	cp.kubectl(testdata(t, "tutorial-queue.yaml", "PREFIX", "imp2"), "apply", "-f", "-")
	cp.kubectl("", "delete", "resourceflavor", "imp2-on-demand", "--wait=false") // Kueue holds it terminating while the queue uses it
	tf2 := newTFRunInProcess(t, fmt.Sprintf(`
provider "dwsfallback" {}

import {
  to = dwsfallback_kueue_queue.q
  id = "%s/clusterQueues/imp2-cluster-queue"
}
`, ref.String()))
	tf2.generate()
	tf2.mustRun("validate")
	out, code = tf2.planExit()
	if code != 2 || !strings.Contains(out, "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.") ||
		!strings.Contains(out, "ResourceFlavor imp2-on-demand") {
		t.Fatalf("the plan should import the queue and warn that its flavor is being deleted (exit %d):\n%s", code, out)
	}
	tf2.mustRun("apply", "-auto-approve", "-input=false")
	// Now in state, the missing flavor is drift like any other: the next apply makes it again.
	if out, code := tf2.planExit(); code != 2 || !strings.Contains(out, "1 to change") {
		t.Fatalf("after the import, the plan should make the deleted flavor again (exit %d):\n%s", code, out)
	}
	tf2.mustRun("apply", "-auto-approve", "-input=false")
	tf2.expectEmptyPlan()
	cp.kubectl("", "get", "resourceflavor", "imp2-on-demand")
}

// generate writes generated.tf with `terraform plan -generate-config-out` and fails on anything but success.
func (r *tfRun) generate() {
	r.t.Helper()
	r.mustRun("plan", "-input=false", "-generate-config-out=generated.tf")
	b, err := os.ReadFile(filepath.Join(r.dir, "generated.tf"))
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Logf("generated.tf:\n%s", b)
}

// applyDrift applies after a change made beside Terraform. It stands for `plan -detailed-exitcode` then `apply`, one
// terraform run instead of two: the apply plans first and prints that plan. For the drift tests' configurations (no
// outputs, moves, imports or forgets) it ends with "Resources: 0 added, 0 changed, 0 destroyed." exactly when the
// plan's exit would have been 0. ok is false when terraform failed, in its plan (the plan's exit 1) or in its apply.
func (r *tfRun) applyDrift() (out string, changed, ok bool) {
	r.t.Helper()
	out, ok = r.run("apply", "-auto-approve", "-input=false")
	return out, !strings.Contains(out, "Resources: 0 added, 0 changed, 0 destroyed."), ok
}

// planExit runs plan -detailed-exitcode (with args) and returns its output and exit code (0 empty, 1 error, 2
// changes).
func (r *tfRun) planExit(args ...string) (string, int) {
	r.t.Helper()
	return r.execute(append([]string{"plan", "-input=false", "-detailed-exitcode"}, args...)...)
}

// queried is an object the adoption query must find: where it is imported to, its list's display name, and its id.
type queried struct{ address, display, id string }

// adoptionQuery runs, with their resources as `terraform query` does, the lists that examples/adopt-tutorial's query
// runs for these kinds (and the GPU pair list) in ref's cluster, and checks that each object in want is found, with
// no diagnostic, under the id the import contract names. It returns want with the ids the lists gave. Objects not in want,
// and what the lists say of them, are left out.
func adoptionQuery(t *testing.T, ref clusterscope.Ref, want []queried) []queried {
	t.Helper()
	lc := newListClient(t)
	scope := map[string]any{"cluster": ref.Name}
	type result struct {
		id    string
		diags []string
	}
	found := map[string]result{} // by "type display"
	for _, q := range []struct {
		typ    string
		config map[string]any
	}{
		{"dwsfallback_cluster", map[string]any{}},
		{"dwsfallback_tpu_pool_pair", scope},
		{"dwsfallback_gpu_pool_pair", scope},
		{"dwsfallback_kueue_queue", scope},
		{"dwsfallback_rayjob", map[string]any{"cluster": ref.Name, "namespace": "default"}},
	} {
		for _, l := range lc.list(t, q.typ, q.config, true, 0, []string{"id"}) {
			if l.DisplayName == "" && len(l.Diagnostics) > 0 { // the whole list's, not an object's
				t.Errorf("%s: %q", q.typ, l.Diagnostics)
			}
			found[q.typ+" "+l.DisplayName] = result{l.State["id"], l.Diagnostics}
		}
	}
	out := make([]queried, 0, len(want))
	for _, w := range want {
		typ, _, _ := strings.Cut(w.address, ".")
		got := found[typ+" "+w.display]
		if got.id != w.id || len(got.diags) > 0 {
			t.Fatalf("the adoption query found %s %q as %q (diagnostics %q), want %q", typ, w.display, got.id, got.diags, w.id)
		}
		w.id = got.id
		out = append(out, w)
	}
	return out
}
