package provider

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/helm"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/localstack"
)

// TestAccKueueInstall_basic installs the tutorial's Kueue (its feature gate) from the chart in the sigs.k8s.io/kueue
// module into a control plane of its own, imports it, and uninstalls it: the install's whole life in three steps, for
// every CLI (make test-tofu runs it under OpenTofu). TestAccKueueInstall_chart covers upgrades, drift and adoption.
func TestAccKueueInstall_basic(t *testing.T) {
	stackTest(t, 1)
	s := startStack(t, true)
	chartDir := filepath.Join(requireModuleDir(t, localstack.KueueModule), "charts/kueue")
	admin := adminClients(t, s)
	config := kubeBlockProvider(s, s.AdminToken) + fmt.Sprintf(`
resource "dwsfallback_kueue_install" "test" {
  chart         = %q
  feature_gates = { ElasticJobsViaWorkloadSlices = true }
  wait          = false
}
`, chartDir)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkKueueReleaseGone(admin),
		Steps: []resource.TestStep{
			{Config: config, Check: resource.TestCheckResourceAttr("dwsfallback_kueue_install.test", "feature_gates.ElasticJobsViaWorkloadSlices", "true")},
			{
				Config: config, ResourceName: "dwsfallback_kueue_install.test", ImportState: true, ImportStateId: "kueue-system/kueue",
				ImportStateVerify: true, ImportStateVerifyIgnore: []string{"chart", "wait", "timeouts", "revision"},
			},
		},
	})
}

// checkKueueReleaseGone checks that the kueue Helm release in kueue-system is gone.
func checkKueueReleaseGone(admin *kube.Clients) func(*terraform.State) error {
	return func(*terraform.State) error {
		h, err := helm.New(admin.Config, "kueue-system", func(string) {})
		if err != nil {
			return err
		}
		if _, err := h.Get("kueue"); !helm.IsNotFound(err) {
			return fmt.Errorf("release kueue after destroy: %w, want not found", err)
		}
		return nil
	}
}
