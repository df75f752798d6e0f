package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// Some behaviours only show with the provider as a separate plugin process under the real terraform CLI: what
// TF_LOG=TRACE writes (both processes' logs) and Ctrl-C. These tests build the provider binary once and run terraform
// against it through dev_overrides, as a provider developer would. Tests that only need terraform commands of their
// own choosing (drift loops, generated configuration, the examples, the platform repos, state upgrades) serve the
// provider in-process instead (newTFRunInProcess).
var (
	pluginOnce sync.Once
	pluginDir  string
	pluginErr  error
)

func providerBinary(t *testing.T) string {
	t.Helper()
	testutil.RequireAcceptance(t)
	pluginOnce.Do(func() {
		pluginDir, pluginErr = os.MkdirTemp("", "dwsfallback-plugin-")
		if pluginErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(pluginDir, "terraform-provider-dwsfallback"), "../..").CombinedOutput()
		if err != nil {
			pluginErr = fmt.Errorf("%w:\n%s", err, out)
		}
	})
	if pluginErr != nil {
		t.Fatalf("building the provider: %v", pluginErr)
	}
	return pluginDir
}

// terraformCLI is the CLI the acceptance tests drive: TF_ACC_TERRAFORM_PATH, as terraform-plugin-testing reads it
// (make test-tf116 sets it to Terraform 1.16), else terraform on PATH.
func terraformCLI() string {
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	return "terraform"
}

// requireTerraform skips a test under a Terraform older than major.minor (or under OpenTofu, which has no
// `terraform query`), naming the version it found.
func requireTerraform(t *testing.T, major, minor int) {
	t.Helper()
	testutil.RequireAcceptance(t)
	out, err := exec.Command(terraformCLI(), "version", "-json").Output()
	if err != nil {
		t.Fatalf("%s version: %v", terraformCLI(), err)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%s version -json: %v\n%s", terraformCLI(), err, out)
	}
	var maj, mi int
	if _, err := fmt.Sscanf(v.Version, "%d.%d", &maj, &mi); err != nil {
		t.Fatalf("%s version %q: %v", terraformCLI(), v.Version, err)
	}
	if os.Getenv("TF_ACC_PROVIDER_HOST") == "registry.opentofu.org" || maj < major || (maj == major && mi < minor) {
		t.Skipf("needs Terraform %d.%d or later (make test-tf116 runs it), found %s at %s", major, minor, v.Version, terraformCLI())
	}
}

// tfRun is a terraform working directory, with the freshly built provider binary or, when inProcess, a provider
// server in this test process for each command.
type tfRun struct {
	t   *testing.T
	dir string
	env []string
	// inProcess: each command reaches a provider server in this process (newTFRunInProcess).
	inProcess bool
}

func newTFRun(t *testing.T, config string, env ...string) *tfRun {
	t.Helper()
	return newTFRunWith(t, providerBinary(t), config, env...)
}

// newTFRunWith is newTFRun with the provider binary of plugins, a folder (an earlier release, for upgrades).
func newTFRunWith(t *testing.T, plugins, config string, env ...string) *tfRun {
	t.Helper()
	dir := t.TempDir()
	rc := filepath.Join(dir, "dev.tfrc")
	overrides := `provider_installation {
  dev_overrides { "` + Address + `" = "` + plugins + `" }
  direct {}
}
`
	if err := os.WriteFile(rc, []byte(overrides), 0o600); err != nil {
		t.Fatal(err)
	}
	config = "terraform {\n  required_providers {\n    dwsfallback = { source = \"dwsfallback/dwsfallback\" }\n  }\n}\n" + config
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"TF_CLI_CONFIG_FILE=" + rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1"}
	return &tfRun{t: t, dir: dir, env: append(append(os.Environ(), base...), env...)}
}

func (r *tfRun) command(args ...string) *exec.Cmd {
	cmd := exec.Command(terraformCLI(), append(args, "-no-color")...)
	cmd.Dir, cmd.Env = r.dir, r.env
	return cmd
}

// run runs terraform and returns its combined output and whether it succeeded.
func (r *tfRun) run(args ...string) (string, bool) {
	r.t.Helper()
	out, code := r.execute(args...)
	return out, code == 0
}

// execute runs terraform, served by a provider server of its own when the run is in-process, and returns its
// combined output and exit code: 1 when it could not start, -1 when a signal ended it.
func (r *tfRun) execute(args ...string) (string, int) {
	r.t.Helper()
	cmd := r.command(args...)
	if r.inProcess {
		env, stop := r.serve()
		defer stop()
		cmd.Env = env
	}
	out, err := cmd.CombinedOutput()
	if err == nil {
		return string(out), 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	return string(out) + err.Error(), 1
}

func (r *tfRun) mustRun(args ...string) string {
	r.t.Helper()
	out, ok := r.run(args...)
	if !ok {
		r.t.Fatalf("terraform %s failed:\n%s", strings.Join(args, " "), out)
	}
	return out
}

// interruptible starts terraform in a process group of its own, so that interrupt reaches terraform and the
// provider together, as Ctrl-C in a terminal does.
func (r *tfRun) interruptible(out *bytes.Buffer, args ...string) *exec.Cmd {
	if r.inProcess {
		r.t.Fatal("an interrupt must reach a provider process: use newTFRun")
	}
	cmd := r.command(args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	return cmd
}

func interrupt(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }

func testdata(t *testing.T, name string, replace ...string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.NewReplacer(replace...).Replace(string(b))
}

func readState(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st
}
