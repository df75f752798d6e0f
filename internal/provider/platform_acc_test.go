package provider

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAccPlatform_twoGenerationsSplitStates works the way a platform team's repos do (testdata/platform): an infra
// state with two TPU generations' pool pairs and two team queues in a cohort that share flavors and the DWS check,
// and a jobs state that reads the infra state and submits jobs of both generations through a module, every nested
// attribute fed from variables. Validate, apply from zero, empty plans, jobs on their own generation, a targeted
// destroy of one job keeping the files the others mount, a team queue's destroy refused while its job runs and then
// leaving the other team's queue and the shared objects intact, and a final destroy that leaves nothing.
func TestAccPlatform_twoGenerationsSplitStates(t *testing.T) {
	stackTest(t, 1)
	// No zone on record offers both v6e and v5e: the cluster is in us-central1-b (v6e), the v5e pair in
	// us-central1-a, and the states name the cluster by id.
	ref := createTestClusterIn(t, "us-central1-b", "acc-platform")
	root := copyTree(t, "testdata/platform")
	infra := newTFRunIn(t, filepath.Join(root, "infra"))
	jobs := newTFRunIn(t, filepath.Join(root, "jobs"))
	infraVars := map[string]any{
		"cluster": ref.String(),
		"pairs": map[string]any{
			"v6e": map[string]any{"machine_type": "ct6e-standard-4t", "topology": "4x4", "max_nodes": 4,
				"pools": map[string]string{"on_demand": "v6e-od", "flex_start": "v6e-dws-pool"}},
			"v5e": map[string]any{"machine_type": "ct5lp-hightpu-4t", "topology": "2x4", "max_nodes": 2, "node_locations": []string{"us-central1-a"},
				"pools": map[string]string{"on_demand": "v5e-od", "flex_start": "v5e-dws-pool"}},
		},
		"teams": map[string]any{
			"a": map[string]any{"namespace": "default", "slices": map[string]int{"v6e": 1, "v5e": 1}},
			"b": map[string]any{"namespace": "default", "slices": map[string]int{"v5e": 1}},
		},
	}
	writeJSON(t, filepath.Join(root, "infra", "terraform.tfvars.json"), infraVars)
	writeJSON(t, filepath.Join(root, "jobs", "terraform.tfvars.json"), map[string]any{
		"cluster": ref.String(),
		"jobs": map[string]any{
			"a-v6e-1": map[string]string{"team": "a", "generation": "v6e"},
			"a-v6e-2": map[string]string{"team": "a", "generation": "v6e"},
			"a-v5e-1": map[string]string{"team": "a", "generation": "v5e"},
			"b-v5e-1": map[string]string{"team": "b", "generation": "v5e"},
		},
	})
	api := on(t, ref).clients().Kueue.KueueV1beta2()
	ctx := context.Background()
	exists := func(get func() error) bool {
		err := get()
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}
	cq := func(n string) func() error {
		return func() error { _, err := api.ClusterQueues().Get(ctx, n, metav1.GetOptions{}); return err }
	}
	flavor := func(n string) func() error {
		return func() error { _, err := api.ResourceFlavors().Get(ctx, n, metav1.GetOptions{}); return err }
	}
	check := func(n string) func() error {
		return func() error { _, err := api.AdmissionChecks().Get(ctx, n, metav1.GetOptions{}); return err }
	}
	t.Cleanup(func() {
		jobs.run("destroy", "-auto-approve")
		infra.run("destroy", "-auto-approve")
	})

	// Validate with every variable unknown: nested attributes fed by variables, concat() and merge(). Modules are
	// installed with get: init would ask the registry for the provider that dev_overrides already supplies.
	for _, r := range []*tfRun{infra, jobs} {
		r.mustRun("get")
		r.mustRun("validate")
	}
	infra.mustRun("apply", "-auto-approve", "-input=false")
	infra.expectEmptyPlan()

	// The platform team changes the flavor every team's queue shares: both queues update it in one apply (each
	// finds the live flavor still as it last declared it, or already as it now declares it), and the plan is empty.
	infraVars["cpu_flavor"] = map[string]any{"name": "default-cpu", "quotas": map[string]string{"cpu": "10", "memory": "20Gi", "google.com/tpu": "0"},
		"node_labels": map[string]string{"cloud.google.com/gke-nodepool": "default-pool", "cloud.google.com/machine-family": "n2"}}
	writeJSON(t, filepath.Join(root, "infra", "terraform.tfvars.json"), infraVars)
	infra.mustRun("apply", "-auto-approve", "-input=false")
	infra.expectEmptyPlan()
	if rf, err := api.ResourceFlavors().Get(ctx, "default-cpu", metav1.GetOptions{}); err != nil || rf.Spec.NodeLabels["cloud.google.com/machine-family"] != "n2" {
		t.Fatalf("the shared flavor after both queues changed it: %v %v", err, rf.Spec.NodeLabels)
	}

	jobs.mustRun("apply", "-auto-approve", "-input=false")
	var flavors map[string]string
	if err := json.Unmarshal([]byte(jobs.mustRun("output", "-json", "admitted_flavors")), &flavors); err != nil {
		t.Fatal(err)
	}
	onDemand := 0
	for job, f := range flavors {
		gen := strings.Split(job, "-")[1]
		if !strings.HasPrefix(f, gen+"-") {
			t.Errorf("job %s (%s) was admitted on flavor %q, of another TPU generation", job, gen, f)
		}
		if strings.HasPrefix(job, "a-v6e") && f == "v6e-on-demand" {
			onDemand++
		}
	}
	if onDemand != 1 {
		t.Errorf("admitted flavors %v: want exactly one of team a's two v6e jobs on v6e-on-demand (one slice of quota) and the other on v6e-dws", flavors)
	}
	jobs.expectEmptyPlan()
	infra.expectEmptyPlan()

	// One job destroyed alone: the files the others mount stay, and only that job is planned again.
	jobs.mustRun("destroy", "-auto-approve", `-target=module.jobs.dwsfallback_rayjob.job["a-v6e-2"]`)
	if _, err := on(t, ref).clients().Core.ConfigMaps("default").Get(ctx, "train-script", metav1.GetOptions{}); err != nil {
		t.Fatalf("the shared ConfigMap after destroying one of its jobs: %v", err)
	}
	if out := jobs.mustRun("plan", "-input=false"); !strings.Contains(out, "Plan: 1 to add, 0 to change, 0 to destroy") {
		t.Errorf("after destroying one job, the plan should submit that one again and touch nothing else:\n%s", out)
	}

	// Team b's queue cannot go while its job holds quota: refused before anything is deleted, naming the job.
	target := `-target=module.queues.dwsfallback_kueue_queue.team["b"]`
	out, ok := infra.run("destroy", "-auto-approve", target)
	if ok || !patternRE(`(?s)Nothing was deleted\. ClusterQueue b-queue .* default/\S+ \(of RayJob default/b-v5e-1\)`).MatchString(out) {
		t.Fatalf("destroying team b's queue while b-v5e-1 runs: ok=%v\n%s", ok, out)
	}
	if _, err := api.LocalQueues("default").Get(ctx, "b-jobs", metav1.GetOptions{}); err != nil {
		t.Fatalf("the refused destroy deleted the LocalQueue: %v", err)
	}

	jobs.mustRun("destroy", "-auto-approve")
	infra.mustRun("destroy", "-auto-approve", target)
	if exists(cq("b-queue")) || !exists(cq("a-queue")) {
		t.Errorf("after destroying team b's queue: b-queue exists=%v, a-queue exists=%v", exists(cq("b-queue")), exists(cq("a-queue")))
	}
	for _, n := range []string{"default-cpu", "v5e-on-demand", "v5e-dws"} {
		if !exists(flavor(n)) {
			t.Errorf("flavor %s, which team a still uses, was deleted with team b's queue", n)
		}
	}
	if !exists(check("dws-prov")) {
		t.Error("the shared DWS admission check was deleted with team b's queue")
	}

	infra.mustRun("destroy", "-auto-approve")
	for _, n := range []string{"default-cpu", "v5e-on-demand", "v5e-dws", "v6e-on-demand", "v6e-dws"} {
		if exists(flavor(n)) {
			t.Errorf("flavor %s left behind by the final destroy", n)
		}
	}
	if exists(cq("a-queue")) || exists(check("dws-prov")) {
		t.Error("a ClusterQueue or the admission check left behind by the final destroy")
	}
	if pools := testPools(t, ref); len(pools) != 1 {
		t.Errorf("pools left after destroy: %d, want only default-pool", len(pools))
	}
}

// newTFRunIn is a terraform working directory on an existing folder of configuration, with the provider served
// in-process.
func newTFRunIn(t *testing.T, dir string) *tfRun {
	t.Helper()
	r := newTFRunInProcess(t, "") // its folder keeps the CLI configuration; the configuration is dir's
	r.dir = dir
	return r
}

func (r *tfRun) expectEmptyPlan() {
	r.t.Helper()
	if out, code := r.planExit(); code != 0 {
		r.t.Fatalf("plan in %s is not empty (exit %d):\n%s", filepath.Base(r.dir), code, out)
	}
}

// copyTree copies a testdata folder into a temporary one, so that terraform's files stay out of the source tree.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	out, err := exec.Command("cp", "-R", src+"/.", dst).CombinedOutput()
	if err != nil {
		t.Fatalf("copying %s: %v\n%s", src, err, out)
	}
	return dst
}

func writeJSON(t *testing.T, file string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
