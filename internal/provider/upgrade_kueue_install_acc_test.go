//go:build !nohelm

package provider

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/localstack"
)

// TestAccUpgrade_kueueInstallFixtures is TestAccUpgrade_stateFixtures for the Kueue install, whose fixtures sit in
// testdata/upgrade/<version>/kueue_install: it needs a control plane of its own (the chart's webhooks would shadow
// the running Kueue's), reached through the provider's kubernetes block, and the chart's folder, a path in this
// machine's module cache, is written CHART_DIR in the fixture.
func TestAccUpgrade_kueueInstallFixtures(t *testing.T) {
	stackTest(t, 1)
	s := startStack(t, true)
	ph := placeholders{"CHART_DIR": filepath.Join(requireModuleDir(t, localstack.KueueModule), "charts/kueue")}
	for _, f := range upgradeFixtures {
		dir := filepath.Join("testdata", "upgrade", f.version, "kueue_install")
		config, err := os.ReadFile(filepath.Join(dir, "main.tf"))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		t.Run(f.version, func(t *testing.T) {
			if err != nil {
				t.Fatal(err)
			}
			tf := upgradeRun(t, kubeBlockProvider(s, s.AdminToken)+string(ph.in(config)), filepath.Join(dir, "terraform.tfstate"), ph)
			checkUpgradeIdentities(t, tf, kubeBlock(s))
			checkUpgradePlan(t, tf, f.version, f.announced)
		})
	}
}
