package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccCluster_servedVersion: the local stack's control planes run Kubernetes 1.35 whatever a cluster asks for. A
// cluster asking for another minor says so in a warning when it is made or its version changes, and not on an apply
// that leaves the version alone or asks for the minor that runs.
func TestAccCluster_servedVersion(t *testing.T) {
	t.Parallel() // GKE only (the cluster's /version is answered without starting its control plane)
	requireStack(t)
	tf := newTFRunInProcess(t, "")
	const warning = "Control plane runs another Kubernetes minor"
	apply := func(version, extra string) string {
		t.Helper()
		cfg := "terraform {\n  required_providers {\n    dwsfallback = { source = \"dwsfallback/dwsfallback\" }\n  }\n}\n" +
			clusterConfig("acc-served", false, `kubernetes_version = "`+version+`"`+"\n  "+extra)
		if err := os.WriteFile(filepath.Join(tf.dir, "main.tf"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		return tf.mustRun("apply", "-auto-approve", "-input=false", "-no-color")
	}
	t.Cleanup(func() { tf.run("apply", "-destroy", "-auto-approve", "-input=false") })
	for _, step := range []struct {
		version, extra string
		warns          bool
	}{
		{"1.34", "", true},
		{"1.34", `labels = { team = "ml" }`, false}, // no version change
		{"1.35", "", false},
		{"1.36", "", true},
	} {
		out := apply(step.version, step.extra)
		if got := strings.Contains(out, warning); got != step.warns {
			t.Errorf("apply of %s %s: warning %v, want %v\n%s", step.version, step.extra, got, step.warns, out)
		}
		if step.warns && !strings.Contains(out, "runs Kubernetes v1.35.") {
			t.Errorf("apply of %s: the warning does not name what runs\n%s", step.version, out)
		}
	}
}
