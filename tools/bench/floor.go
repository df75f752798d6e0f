package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// floor is what Terraform itself spends planning as many resources as the measured stack, carrying as much state,
// with no provider process at all: terraform_data is built into Terraform. Our plan over the floor is what the
// provider adds.
type floor struct {
	Resources    int
	StateBytes   int64
	Plan         time.Duration
	TerraformRSS int64
	// Plugin is a plan of our own configuration and state against the echo provider (internal/echoprovider): our
	// schema and binary, doing nothing. It is what Terraform and the plugin protocol cost for these resources.
	Plugin time.Duration
	// PluginCPU is the CPU of one such plan: Terraform's and the echo provider's processes.
	PluginTerraformCPU, PluginProviderCPU time.Duration
}

// measureFloor plans terraform_data resources shaped after the stack whose state is at stateFile: one per resource
// instance, and an input string sized so that the whole state is about as large.
func (b *bench) measureFloor(dir, stateFile string) (floor, error) {
	var f floor
	data, err := os.ReadFile(stateFile)
	if err != nil {
		return f, err
	}
	var st struct {
		Resources []struct {
			Instances []json.RawMessage `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return f, err
	}
	for _, r := range st.Resources {
		f.Resources += len(r.Instances)
	}
	tf, err := newWorkdir(dir, b.binary, floorConfig(f.Resources, len(data)), b.env)
	if err != nil {
		return f, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if err := tf.run("apply", "-auto-approve"); err != nil {
		return f, err
	}
	if fi, err := os.Stat(filepath.Join(dir, "terraform.tfstate")); err == nil {
		f.StateBytes = fi.Size()
	}
	var plans []time.Duration
	for i := 0; i < b.runs; i++ {
		start := time.Now()
		if err := tf.run("plan", "-detailed-exitcode"); err != nil {
			return f, fmt.Errorf("floor plan is not empty or failed: %w", err)
		}
		plans = append(plans, time.Since(start))
	}
	f.Plan = median(plans)
	peaks, _, err := usage([]string{"terraform"}, func() error { return tf.run("plan", "-detailed-exitcode") })
	f.TerraformRSS = peaks["terraform"]
	return f, err
}

// floorConfig is n terraform_data resources whose state adds up to about stateBytes: terraform_data keeps its input
// twice (input and output), besides some 300 bytes of its own per instance.
func floorConfig(n, stateBytes int) string {
	per := max(1, (stateBytes/max(n, 1)-300)/2)
	return fmt.Sprintf(`
locals {
  blob = %q
}

resource "terraform_data" "floor" {
  count = %d
  input = local.blob
}
`, strings.Repeat("x", per), n)
}

// pluginFloorDir is a working folder with the stack's own configuration and state (copied from stackDir), planned
// against the echo provider; nil without one. Its plans alternate with ours (measure), so that both meet the same
// machine: Kueue and the API server still work on the jobs for a while after their create.
func (b *bench) pluginFloorDir(dir, stackDir string) (*workdir, error) {
	if b.echo == "" {
		return nil, nil
	}
	tf, err := newWorkdir(dir, b.echo, "", b.env)
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"main.tf", "terraform.tfstate"} {
		data, err := os.ReadFile(filepath.Join(stackDir, name))
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return nil, err
		}
	}
	return tf, nil
}

// pluginFloorPlan is one plan of the plugin floor, timed.
func pluginFloorPlan(tf *workdir) (time.Duration, error) {
	start := time.Now()
	if err := tf.run("plan", "-detailed-exitcode"); err != nil {
		return 0, fmt.Errorf("plugin floor plan is not empty or failed: %w", err)
	}
	return time.Since(start), nil
}

// pluginFloorCPU is the CPU of one plan of the plugin floor: Terraform's and the echo provider's.
func pluginFloorCPU(f *floor, tf *workdir) error {
	_, cpu, err := usage([]string{"terraform", "terraform-provider-dwsfallback"}, func() error { return tf.run("plan", "-detailed-exitcode") })
	f.PluginTerraformCPU, f.PluginProviderCPU = cpu["terraform"], cpu["terraform-provider-dwsfallback"]
	return err
}
