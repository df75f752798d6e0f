package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// upgradeFixtures are states written by released versions of the provider, each in testdata/upgrade/<version> beside
// the configuration it applied. A release adds one (see writeUpgradeFixture).
var upgradeFixtures = []struct {
	version string
	commit  string // what the fixture was written with
	// announced are the in-place changes the CHANGELOG tells users of this version to expect on their first plan,
	// as "address: attribute". None so far.
	announced []string
	// first are applied before the rest when today's provider makes the objects: the cluster the Kubernetes objects
	// go to, so that it, not a cluster nobody reaches, takes the control plane the suite shares when that is free (a
	// later cluster gets a spare plane or starts one). Writing a fixture with an old release applies all at once, as
	// its users did.
	first []string
}{
	{version: "0.1.0", commit: "1ef13a5", first: []string{"dwsfallback_cluster.full"}},
	// Not a release: the 0.2.0 line before the boot disk, gVNIC and lifecycle attributes, whose users upgrade too.
	{version: "0.2.0-dev", commit: "88358d0"},
}

// TestAccUpgrade_stateFixtures is an upgrade as users make it: state written by an earlier release, then today's
// provider upgrades, refreshes and plans it through Terraform. No error, no replacement, and no in-place change the
// CHANGELOG does not announce; and each resource gets the identity an import of its id gives. The objects are made from the fixture's configuration by today's provider, then the
// state is swapped for the fixture's (its volatile values taken from the objects made).
//
// DWSFALLBACK_UPGRADE_FROM=<folder with that release's provider binary> writes the fixture instead: that release
// applies the configuration and its state is kept, and the check runs on the objects it made.
func TestAccUpgrade_stateFixtures(t *testing.T) {
	stackTest(t, 1)
	for _, f := range upgradeFixtures {
		t.Run(f.version, func(t *testing.T) {
			dir := filepath.Join("testdata", "upgrade", f.version)
			config, err := os.ReadFile(filepath.Join(dir, "main.tf"))
			if err != nil {
				t.Fatal(err)
			}
			tf := upgradeRun(t, string(config), filepath.Join(dir, "terraform.tfstate"), nil, f.first...)
			checkUpgradeIdentities(t, tf, map[string]any{})
			checkUpgradePlan(t, tf, f.version, f.announced)
		})
	}
}

// upgradeRun is a working folder whose state was written by an earlier release from config: the fixture, planted
// over objects that today's provider made from config; or, with DWSFALLBACK_UPGRADE_FROM, written into the fixture
// by that release, over the objects it made.
func upgradeRun(t *testing.T, config, fixture string, ph placeholders, first ...string) *tfRun {
	t.Helper()
	if old := os.Getenv("DWSFALLBACK_UPGRADE_FROM"); old != "" {
		return writeUpgradeFixture(t, old, config, fixture, ph)
	}
	tf := newTFRunInProcess(t, config) // today's provider: what an upgrade changes is state, not the process
	t.Cleanup(func() { tf.run("destroy", "-auto-approve", "-input=false") })
	if len(first) > 0 {
		args := []string{"apply", "-auto-approve", "-input=false"}
		for _, a := range first {
			args = append(args, "-target="+a)
		}
		tf.mustRun(args...)
	}
	tf.mustRun("apply", "-auto-approve", "-input=false")
	plantFixture(t, tf, fixture, ph)
	return tf
}

// placeholders are values that differ between machines (a path in the module cache), by the name a fixture holds
// in their place.
type placeholders map[string]string

// in puts this machine's values in place of the names.
func (p placeholders) in(b []byte) []byte {
	for name, v := range p {
		b = bytes.ReplaceAll(b, []byte(name), []byte(v))
	}
	return b
}

// out puts the names in place of this machine's values.
func (p placeholders) out(b []byte) []byte {
	for name, v := range p {
		b = bytes.ReplaceAll(b, []byte(v), []byte(name))
	}
	return b
}

// checkUpgradePlan plans with today's provider in tf, which holds state written by version, and fails on an error, a
// replacement or an in-place change that is not announced; then applies, and the next plan must be empty.
func checkUpgradePlan(t *testing.T, tf *tfRun, version string, announced []string) {
	t.Helper()
	tf.mustRun("plan", "-input=false", "-out=upgrade.tfplan")
	var plan struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Type    string `json:"type"`
			Change  struct {
				Actions      []string       `json:"actions"`
				Before       map[string]any `json:"before"`
				After        map[string]any `json:"after"`
				AfterUnknown map[string]any `json:"after_unknown"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(tf.mustRun("show", "-json", "upgrade.tfplan")), &plan); err != nil {
		t.Fatal(err)
	}
	var unexpected []string
	for _, rc := range plan.ResourceChanges {
		switch {
		case slices.Equal(rc.Change.Actions, []string{"no-op"}), slices.Equal(rc.Change.Actions, []string{"read"}):
		case slices.Equal(rc.Change.Actions, []string{"update"}):
			for _, a := range changedAttributes(rc.Change.Before, rc.Change.After, rc.Change.AfterUnknown) {
				if c := rc.Address + ": " + a; !slices.Contains(announced, c) {
					unexpected = append(unexpected, c)
				}
			}
		default:
			unexpected = append(unexpected, fmt.Sprintf("%s: %v", rc.Address, rc.Change.Actions))
		}
	}
	if len(unexpected) > 0 {
		t.Fatalf("the first plan after upgrading from %s changes what the CHANGELOG does not announce:\n%s\n\n%s",
			version, strings.Join(unexpected, "\n"), tf.mustRun("show", "upgrade.tfplan"))
	}
	tf.mustRun("apply", "-auto-approve", "-input=false", "upgrade.tfplan")
	tf.expectEmptyPlan()
}

// writeUpgradeFixture applies config with the provider in the folder old (an earlier release) and keeps its state,
// without the run's own bookkeeping (lineage, serial, Terraform's version).
func writeUpgradeFixture(t *testing.T, old, config, fixture string, ph placeholders) *tfRun {
	t.Helper()
	prev := newTFRunWith(t, old, config)
	t.Cleanup(func() { prev.run("destroy", "-auto-approve", "-input=false") })
	prev.mustRun("apply", "-auto-approve", "-input=false")
	st := readState(t, prev.dir)
	st["lineage"], st["serial"], st["terraform_version"] = "fixture", 1, "fixture"
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fixture, append(ph.out(b), '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	// Today's provider takes over the working folder, as an upgrade does.
	tf := newTFRunInProcess(t, config)
	tf.dir = prev.dir
	return tf
}

// plantFixture replaces the state of tf with the fixture's, keeping this run's lineage and a higher serial, so that
// Terraform reads it as the next state of this working folder.
func plantFixture(t *testing.T, tf *tfRun, fixture string, ph placeholders) {
	t.Helper()
	live := readState(t, tf.dir)
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(ph.in(b), &st); err != nil {
		t.Fatal(err)
	}
	if a, b := resourcesOf(live), resourcesOf(st); !slices.Equal(a, b) {
		t.Fatalf("the configuration made %v, the fixture holds %v", a, b)
	}
	st["lineage"], st["terraform_version"] = live["lineage"], live["terraform_version"]
	st["serial"] = live["serial"].(float64) + 1
	out, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tf.dir, "terraform.tfstate"), out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// resourcesOf lists a state's resource instances by address.
func resourcesOf(st map[string]any) []string {
	var out []string
	for _, r := range st["resources"].([]any) {
		r := r.(map[string]any)
		for range r["instances"].([]any) {
			out = append(out, fmt.Sprintf("%s.%s.%s", r["mode"], r["type"], r["name"]))
		}
	}
	sort.Strings(out)
	return out
}

// changedAttributes names the top-level attributes an update changes, or makes unknown.
func changedAttributes(before, after, unknown map[string]any) []string {
	var out []string
	for k, b := range before {
		ab, _ := json.Marshal(after[k])
		bb, _ := json.Marshal(b)
		if string(ab) != string(bb) || unknown[k] != nil && unknown[k] != false {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
