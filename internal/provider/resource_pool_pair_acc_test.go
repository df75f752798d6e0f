package provider

import (
	"fmt"
	"strings"
	"testing"
)

// TestAccUnknownMachineTypes: a machine type the provider does not know validates with a warning that says what
// it cannot check, and the API's refusal (the emulator knows no more types than the catalog) reaches the user verbatim.
func TestAccUnknownMachineTypes(t *testing.T) {
	t.Parallel() // GKE only, on clusters of its own
	ref := createTestCluster(t, "acc-unknown")
	for _, tc := range []struct {
		config, warning, refusal string
	}{
		{
			config: withAttr(withAttr(strings.Replace(pairConfig(ref.Name, "od", "dws", 4), `"ct6e-standard-4t"`, `"ct9z-standard-4t"`, 1),
				`tpu_accelerator = "tpu-v9-slice"`), "chips_per_node = 4"),
			warning: "TPU machine type not known to this provider",
			refusal: `gkeemu: "ct9z-standard-4t" is not a TPU machine type the emulator knows; use one from its catalog of GKE's TPU machine types.`,
		},
		{
			config: fmt.Sprintf(`
resource "dwsfallback_gpu_pool_pair" "test" {
  cluster       = %q
  machine_type  = "a9-futuregpu-8g"
  gpu_type      = "nvidia-x300"
  gpus_per_node = 8
  max_nodes     = 2
  on_demand     = { name = "od" }
  flex_start    = { name = "dws" }
}
`, ref.Name),
			warning: "GPU machine type not known to this provider",
			refusal: `Invalid machine type "a9-futuregpu-8g" in zone "us-east5-b": GCE_NOT_FOUND`,
		},
	} {
		tf := newTFRun(t, tc.config, "DWSFALLBACK_CONTAINER_ENDPOINT="+emuEndpoint)
		out := tf.mustRun("validate")
		if !strings.Contains(out, tc.warning) {
			t.Errorf("validate passed without the warning %q:\n%s", tc.warning, out)
		}
		out, ok := tf.run("apply", "-auto-approve")
		if ok || !strings.Contains(strings.Join(strings.Fields(out), " "), tc.refusal) {
			t.Errorf("apply: ok=%v, want the API's refusal %q verbatim:\n%s", ok, tc.refusal, out)
		}
	}
}
