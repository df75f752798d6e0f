package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exampleRun is a Terraform run in a copy of examples/<name>, beside the tutorial's training script that the
// examples read from ../tutorial. newTFRunIn serves the provider in-process: what the examples show is the
// configuration's effect, not the plugin process.
func exampleRun(t *testing.T, name string) *tfRun {
	t.Helper()
	dir := t.TempDir()
	for src, dst := range map[string]string{
		filepath.Join("../../examples", name, "main.tf"): filepath.Join(name, "main.tf"),
		"../../examples/tutorial/train.py":               "tutorial/train.py",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, dst)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return newTFRunIn(t, filepath.Join(dir, name))
}

// TestAccExamples_cleanAfterApply: right after each complete example applies, `terraform plan -detailed-exitcode`
// exits 0, as a pipeline that checks drift needs (capacity-fallback and multi-region check it in their own tests).
// The tutorial makes its own cluster; the others go on a cluster made as the tutorial's commands make it.
func TestAccExamples_cleanAfterApply(t *testing.T) {
	stackTest(t, 1)
	for _, tc := range []struct {
		example string
		vars    func(t *testing.T) []string
	}{
		{"tutorial", func(*testing.T) []string {
			// As make demo runs it: the local stack runs its own Kueue, and the chart's registry is off loopback.
			return []string{"-var", "cluster=example-tutorial", "-var", "deletion_protection=false", "-var", "install_kueue=false"}
		}},
		{"gpu-fallback", func(t *testing.T) []string {
			return []string{"-var", "cluster=" + createRayCluster(t, "example-gpu").String()}
		}},
		{"tpu7x", func(t *testing.T) []string {
			return []string{"-var", "cluster=" + createRayClusterIn(t, tpu7xZone, "example-tpu7x").String()}
		}},
	} {
		t.Run(tc.example, func(t *testing.T) {
			tf := exampleRun(t, tc.example)
			vars := tc.vars(t)
			// Registered after the cluster's own clean-up, so it runs before it.
			t.Cleanup(func() { tf.run(append([]string{"apply", "-destroy", "-auto-approve", "-input=false"}, vars...)...) })
			tf.mustRun(append([]string{"apply", "-auto-approve", "-input=false"}, vars...)...)
			if out, code := tf.planExit(vars...); code != 0 {
				t.Errorf("plan right after the apply: exit %d, want 0\n%s", code, out)
			}
		})
	}
}

// TestAccExamples_reservationFallback: with a reservation of 2 slices, examples/reservation-fallback runs the first
// two jobs on it and the third on DWS, and plans nothing after the apply.
func TestAccExamples_reservationFallback(t *testing.T) {
	stackTest(t, 1)
	addReservation(t, "example-tpu-reservation", 8)
	tf := exampleRun(t, "reservation-fallback")
	vars := []string{"-var", "cluster=" + createRayCluster(t, "example-reservation").String(), "-var", "reservation=example-tpu-reservation"}
	t.Cleanup(func() { tf.run(append([]string{"apply", "-destroy", "-auto-approve", "-input=false"}, vars...)...) })
	tf.mustRun(append([]string{"apply", "-auto-approve", "-input=false"}, vars...)...)
	out := tf.mustRun("output", "-json", "admitted_flavors")
	if want := `["reservation","reservation","reservation-dws"]`; strings.TrimSpace(out) != want {
		t.Errorf("admitted_flavors = %s, want %s", out, want)
	}
	if got := reservationInUse(t, "example-tpu-reservation"); got != 8 {
		t.Errorf("nodes on the reservation = %d, want 8 (two slices)", got)
	}
	if out, code := tf.planExit(vars...); code != 0 {
		t.Errorf("plan right after the apply: exit %d, want 0\n%s", code, out)
	}
}

func reservationInUse(t *testing.T, name string) int {
	t.Helper()
	for _, r := range emu.Reservations() {
		if r.Name == name {
			return r.InUse
		}
	}
	t.Fatalf("no reservation %s", name)
	return 0
}
