package provider

import (
	"fmt"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
)

// badInput is one configuration the provider must refuse at plan time, from the configuration alone, with a message
// that says what is wrong and how to fix it.
type badInput struct {
	name, config, want string
}

// Builders of a valid configuration of each resource, with some attributes replaced.
func badPair(attr, value string) string {
	attrs := map[string]string{
		"cluster": `"tpu-cluster"`, "machine_type": `"ct6e-standard-4t"`, "tpu_topology": `"4x4"`,
		"min_nodes": "0", "max_nodes": "4", "on_demand": `{ name = "od" }`, "flex_start": `{ name = "dws" }`,
	}
	attrs[attr] = value
	return hclResource("dwsfallback_tpu_pool_pair", attrs,
		"cluster", "machine_type", "tpu_topology", "min_nodes", "max_nodes", "on_demand", "flex_start", "timeouts")
}

func badGPUPair(attr, value string) string {
	attrs := map[string]string{
		"cluster": `"gpu-cluster"`, "machine_type": `"a3-highgpu-8g"`, "max_nodes": "4",
		"on_demand": `{ name = "od" }`, "flex_start": `{ name = "dws" }`,
	}
	attrs[attr] = value
	return hclResource("dwsfallback_gpu_pool_pair", attrs,
		"cluster", "machine_type", "gpu_type", "gpus_per_node", "gpu_driver_version", "min_nodes", "max_nodes", "on_demand", "flex_start")
}

// tpu7x is a valid multi-host TPU7x pair's attributes, for badPair: a 2x2x2 slice placed by workload policy wp.
func tpu7x(attr, value string) string {
	cfg := badPair("machine_type", `"tpu7x-standard-4t"`)
	cfg = strings.Replace(cfg, `tpu_topology = "4x4"`, `tpu_topology = "2x2x2"`+"\n  placement_policy = \"wp\"", 1)
	cfg = strings.Replace(cfg, "max_nodes = 4", "max_nodes = 2", 1) // one 2x2x2 slice
	if attr != "" {
		cfg = withAttr(cfg, attr+" = "+value)
	}
	return cfg
}

// withAttr adds a line to the one resource of cfg.
func withAttr(cfg, line string) string {
	return strings.TrimSuffix(cfg, "}\n") + "  " + line + "\n}\n"
}

func badGPUJob(workers string) string {
	return strings.Replace(badJob("", ""), `tpu_workers = { accelerator = "tpu-v6e-slice", cpu = "8", memory = "16Gi",  }`,
		`gpu_workers = { cpu = "8", memory = "64Gi", `+workers+` }`, 1)
}

func badQueue(body string) string {
	return "resource \"dwsfallback_kueue_queue\" \"test\" {\n  cluster = \"c\"\n  name = \"q\"\n  " + body + "\n}\n"
}

func badFlavor(name, quotas string) string {
	return fmt.Sprintf(`{ name = %q, quotas = %s }`, name, quotas)
}

func badJob(workers, extra string) string {
	return `
resource "dwsfallback_rayjob" "test" {
  cluster    = "c"
  name       = "j"
  entrypoint = "python /app/train.py"
  image      = "rayproject/ray:2.53.0-py311"
  head       = { cpu = "2", memory = "4Gi" }
  tpu_workers = { accelerator = "tpu-v6e-slice", cpu = "8", memory = "16Gi", ` + workers + ` }
  ` + extra + `
}
`
}

func badProvider(attrs string) string {
	return "provider \"dwsfallback\" {\n  " + attrs + "\n}\n" + badPair("", "")
}

func hclResource(typ string, attrs map[string]string, order ...string) string {
	cfg := "resource \"" + typ + "\" \"test\" {\n"
	for _, k := range order {
		if v, ok := attrs[k]; ok {
			cfg += fmt.Sprintf("  %s = %s\n", k, v)
		}
	}
	return cfg + "}\n"
}

func badInputCases() []badInput {
	okQuota := `{ cpu = "1", memory = "1Gi" }`
	w := `topology = "4x4", chips_per_node = 4`
	return []badInput{
		// Provider configuration.
		{"token and credentials", badProvider("access_token = \"a\"\n  credentials  = \"{}\""), `These attributes cannot be configured together: [access_token,credentials]`},
		{"unreadable credentials file", badProvider(`credentials = "/nonexistent/key.json"`), `reading credentials file "/nonexistent/key.json"`},
		{"endpoint scheme", badProvider(`container_endpoint = "ftp://127.0.0.1:1"`), `must be an http or https URL`},
		{"endpoint without scheme", badProvider(`container_endpoint = "127.0.0.1:8080"`), `must be an http or https URL`},

		// dwsfallback_cluster.
		{"cluster name", `resource "dwsfallback_cluster" "test" { name = "Tpu_Cluster" }`, `must be a GKE cluster name`},
		{"cluster name length", `resource "dwsfallback_cluster" "test" { name = "` + strings.Repeat("c", 41) + `" }`, `must be a GKE cluster name: 1 to 40`},
		{"release channel", "resource \"dwsfallback_cluster\" \"test\" {\n  name = \"c\"\n  release_channel = \"NIGHTLY\"\n}", `value must be one of`},
		{"default pool size", "resource \"dwsfallback_cluster\" \"test\" {\n  name = \"c\"\n  default_pool_node_count = 0\n}", `must be at least 1`},
		{"cluster timeout", "resource \"dwsfallback_cluster\" \"test\" {\n  name = \"c\"\n  timeouts = { create = \"soon\" }\n}", `"soon" must be a string containing a sequence of decimal numbers`},

		// dwsfallback_tpu_pool_pair.
		{"unknown machine type without its facts", badPair("machine_type", `"ct6e-standard-9t"`), `tpu_accelerator is needed for an unknown machine type`},
		{"unknown machine type, topology", withAttr(withAttr(strings.Replace(badPair("machine_type", `"ct9z-standard-4t"`), `"4x4"`, `"2x3"`, 1), `tpu_accelerator = "tpu-v9"`), "chips_per_node = 4"), `topology "2x3" has 6 chips, not a whole number of 4-chip nodes`},
		{"non-TPU machine type", badPair("machine_type", `"n2-standard-16"`), `"n2-standard-16" is not a TPU machine type: TPU machine types start with ct or tpu`},
		{"chips contradict the type", withAttr(badPair("", ""), "chips_per_node = 8"), `ct6e-standard-4t nodes have chips_per_node = 4`},
		{"tpu7x without workload policy", strings.Replace(tpu7x("", ""), "  placement_policy = \"wp\"\n", "", 1), `gcloud compute resource-policies create workload-policy NAME --type=HIGH_THROUGHPUT --accelerator-topology=2x2x2`},
		{"tpu7x single host with a policy", strings.Replace(tpu7x("", ""), `"2x2x2"`, `"2x2x1"`, 1), `GKE refuses a topology or workload policy on a single-host tpu7x-standard-4t pool`},
		{"tpu7x topology", strings.Replace(tpu7x("", ""), `"2x2x2"`, `"2x2x3"`, 1), `does not fit machine type tpu7x-standard-4t; it supports 2x2x1, 2x2x2`},
		{"tpu7x large topology", strings.Replace(tpu7x("", ""), `"2x2x2"`, `"8x4x4"`, 1), `or larger shapes whose sides are multiples of 4 in non-decreasing order`},
		{"tpu7x slices", strings.Replace(tpu7x("", ""), "max_nodes = 2", "max_nodes = 3", 1), `A 2x2x2 slice of tpu7x-standard-4t spans 2 nodes`},
		// GKE's multi-host slice pool holds one slice: two in one pool are refused, and slices says how to have two.
		{"two slices in one pool", badPair("max_nodes", "8"), `For 2 slices at once, also set slices = 2`},
		{"a slice's minimum", badPair("min_nodes", "2"), `min_nodes must be 0 or 4, not 2`},
		{"slices of single-host pools", strings.Replace(badPair("tpu_topology", `"2x2"`), `machine_type = "ct6e-standard-4t"`, `machine_type = "ct6e-standard-4t"`+"\n  slices = 2", 1), `Leave slices out and raise max_nodes instead.`},
		{"pool names too long for their slices", withAttr(badPair("on_demand", `{ name = "a-pool-name-of-thirty-eight-characters" }`), "slices = 12"), `GKE takes at most 40. Shorten the name to 37 characters or fewer.`},
		{"topology syntax", badPair("tpu_topology", `"4by4"`), `must look like AxB`},
		{"topology does not fit", badPair("tpu_topology", `"4x3"`), `does not fit machine type ct6e-standard-4t`},
		{"3D topology on v6e", badPair("tpu_topology", `"2x2x4"`), `has 3 dimensions`},
		{"max not whole slices", badPair("max_nodes", "5"), `is not a valid size of TPU pod slice with topology "4x4""). Set max_nodes = 4.`},
		{"min above max", badPair("min_nodes", "8"), `must not exceed max_nodes`},
		{"max zero", badPair("max_nodes", "0"), `must be between 1 and 1000`},
		{"negative min", badPair("min_nodes", "-4"), `must be at least 0`},
		{"same pool names", badPair("flex_start", `{ name = "od" }`), `need different names`},
		{"pool name", badPair("on_demand", `{ name = "On_Demand" }`), `must be a GKE node pool name`},
		{"pool name length", badPair("on_demand", `{ name = "`+strings.Repeat("p", 41)+`" }`), `must be a GKE node pool name: 1 to 40`},
		{"reservation affinity", badPair("on_demand", `{ name = "od", reservation_affinity = "specific-then-any" }`), `value must be one of`},
		{"cluster id", badPair("cluster", `"projects/p/clusters/c"`), `nor a cluster id of the form projects/PROJECT/locations/LOCATION/clusters/NAME`},
		{"pool pair timeout", badPair("timeouts", `{ create = "45 minutes" }`), `"45 minutes" must be a string containing a sequence of decimal numbers`},

		// dwsfallback_gpu_pool_pair.
		{"non-GPU machine type", badGPUPair("machine_type", `"ct6e-standard-4t"`), `"ct6e-standard-4t" is not a GPU machine type`},
		{"gpu count contradicts the type", badGPUPair("gpus_per_node", "4"), `a3-highgpu-8g nodes have 8 GPUs`},
		{"gpu type contradicts the type", badGPUPair("gpu_type", `"nvidia-l4"`), `a3-highgpu-8g nodes carry nvidia-h100-80gb GPUs`},
		{"gpu type without on-demand VMs", badGPUPair("machine_type", `"a3-highgpu-2g"`), `creates a3-highgpu-2g only as Spot or flex-start VMs`},
		{"gpu family without flex-start", badGPUPair("machine_type", `"a4x-highgpu-4g"`), `Set flex_start.provisioning = "queued"`},
		{"unknown gpu machine type", badGPUPair("machine_type", `"a9-futuregpu-8g"`), `gpus_per_node is needed for an unknown machine type`},
		{"gpu driver", badGPUPair("gpu_driver_version", `"newest"`), `value must be one of`},
		{"plan B provisioning", badGPUPair("flex_start", `{ name = "dws", provisioning = "spot" }`), `value must be one of`},
		{"gpu min above max", badGPUPair("min_nodes", "8"), `must not exceed max_nodes`},
		{"gpu same pool names", badGPUPair("flex_start", `{ name = "od" }`), `need different names`},
		{"gpu flavors apart", badQueue(`flavors = [{ name = "h100", quotas = { "nvidia.com/gpu" = "8" }, node_labels = { "cloud.google.com/gke-nodepool" = "a", "cloud.google.com/gke-accelerator" = "nvidia-h100-80gb" } }, { name = "l4", quotas = { "nvidia.com/gpu" = "8" }, node_labels = { "cloud.google.com/gke-nodepool" = "b" } }]`), `Flavor "l4" quotas GPUs but its node_labels lack cloud.google.com/gke-accelerator`},

		// dwsfallback_kueue_queue.
		{"quota quantity", badQueue(`flavors = [` + badFlavor("a", `{ cpu = "lots" }`) + `]`), `is not a Kubernetes quantity`},
		{"quota resource name", badQueue(`flavors = [` + badFlavor("a", `{ "not a/valid/name" = "1" }`) + `]`), `is not a Kubernetes resource name`},
		{"flavors quota different resources", badQueue(`flavors = [` + badFlavor("a", okQuota) + `, ` + badFlavor("b", `{ cpu = "1" }`) + `]`), `Every flavor of a ClusterQueue must quota the same resources`},
		{"flavor listed twice", badQueue(`flavors = [` + badFlavor("a", okQuota) + `, ` + badFlavor("a", okQuota) + `]`), `is listed twice`},
		{"flavor name", badQueue(`flavors = [` + badFlavor("Bad_Name", okQuota) + `]`), `is not a valid Kubernetes name`},
		{"no flavors", badQueue(`flavors = []`), `Attribute flavors list must contain at least 1 elements`},
		{"flavor node label", badQueue(`flavors = [{ name = "a", quotas = ` + okQuota + `, node_labels = { "cloud.google.com/gke-nodepool" = "not a pool!" } }]`), `is not a Kubernetes label value`},
		{"queueing strategy", badQueue(`flavors = [` + badFlavor("a", okQuota) + "]\n  queueing_strategy = \"LIFO\""), `value must be one of`},
		{"local queue listed twice", badQueue(`flavors = [` + badFlavor("a", okQuota) + "]\n  local_queues = [{ namespace = \"default\", name = \"q\" }, { namespace = \"default\", name = \"q\" }]"), `Local queue default/q is listed twice`},
		{"local queue namespace", badQueue(`flavors = [` + badFlavor("a", okQuota) + "]\n  local_queues = [{ namespace = \"Team_A\", name = \"q\" }]"), `"Team_A" is not a valid Kubernetes name`},
		{"admission check wiring", badQueue(`flavors = [{ name = "a", quotas = { cpu = "1" }, provisioning = { config = "x" } }, { name = "b", quotas = { cpu = "1" }, provisioning = { config = "y" } }]`), `used with different config or class`},
		{"admission check name", badQueue(`flavors = [{ name = "a", quotas = { cpu = "1" }, provisioning = { admission_check = "DWS" } }]`), `"DWS" is not a valid Kubernetes name`},
		{"namespace selector", badQueue(`flavors = [` + badFlavor("a", okQuota) + "]\n  namespace_selector = { \"team\" = \"a b\" }"), `is not a Kubernetes label value`},
		{"queue without cluster", "resource \"dwsfallback_kueue_queue\" \"test\" {\n  name = \"q\"\n  flavors = [" + badFlavor("a", okQuota) + "]\n}\n", `Set cluster (the GKE cluster's name or id), or give the provider a kubernetes block`},

		// dwsfallback_rayjob.
		{"chips per node", badJob(`topology = "4x4", chips_per_node = 3`, ""), `value must be one of`},
		{"topology not whole nodes", badJob(`topology = "2x3", chips_per_node = 4`, ""), `has 6 chips, not a whole number of 4-chip nodes`},
		{"job topology syntax", badJob(`topology = "4by4", chips_per_node = 4`, ""), `must look like AxB`},
		{"no workers", strings.Replace(badJob(w, ""), `tpu_workers = { accelerator = "tpu-v6e-slice", cpu = "8", memory = "16Gi", `+w+` }`, "", 1), `Exactly one of these attributes must be configured`},
		{"both workers", strings.Replace(badJob(w, ""), "  \n}", "  gpu_workers = { accelerator = \"nvidia-l4\", gpus = 1, cpu = \"1\", memory = \"1Gi\" }\n}", 1), `Exactly one of these attributes must be configured: [tpu_workers,gpu_workers]`},
		{"more gpus than a node has", badGPUJob(`accelerator = "nvidia-l4", gpus = 12`), `No nvidia-l4 machine type has 12 GPUs per node (the most is 8)`},
		{"gpu replicas", badGPUJob(`accelerator = "nvidia-l4", gpus = 1, min_replicas = 3, max_replicas = 2`), `min_replicas (3) must not exceed max_replicas (2)`},
		{"accelerator without such nodes", strings.Replace(badJob(`topology = "2x4", chips_per_node = 8`, ""), `"tpu-v6e-slice"`, `"tpu-v5p-slice"`, 1), `No tpu-v5p-slice machine type has 8 chips per node`},
		{"topology the nodes do not take", badJob(`topology = "4x16", chips_per_node = 4`, ""), `topology "4x16" does not fit machine type ct6e-standard-4t`},
		{"min above max replicas", badJob(w+`, min_replicas = 3, max_replicas = 2`, ""), `min_replicas (3) must not exceed max_replicas (2)`},
		{"replicas above max", badJob(w+`, replicas = 3, max_replicas = 2`, ""), `replicas (3) must lie between`},
		{"wait mode", badJob(w, `wait_for = "forever"`), `value must be one of`},
		{"file name", badJob(w, `files = { "../etc/passwd" = "x" }`), `cannot be a ConfigMap key`},
		{"worker cpu", badJob(w+`, cpu = "lots"`, ""), `is not a Kubernetes quantity`},
		{"namespace", badJob(w, `namespace = "Not_A_Namespace"`), `is not a valid Kubernetes name`},
		{"job name length", strings.Replace(badJob(w, ""), `name       = "j"`, `name = "`+strings.Repeat("x", 48)+`"`, 1), `string length must be at most 47`},
		{"queue name", badJob(w, `queue = "Queue"`), `"Queue" is not a valid Kubernetes name`},
		{"env name", badJob(w, `env = { "1BAD=" = "x" }`), `is not an environment variable name`},
		{"label key", badJob(w, `labels = { "a/b/c" = "x" }`), `is not a Kubernetes label key`},
		{"job timeout", badJob(w, `timeouts = { create = "1 hour" }`), `"1 hour" must be a string containing a sequence of decimal numbers`},

		// dwsfallback_kueue_install.
		{"values not YAML", "resource \"dwsfallback_kueue_install\" \"test\" {\n  cluster = \"c\"\n  values = \"a: [\"\n}", `Unreadable values`},
		{"release name", "resource \"dwsfallback_kueue_install\" \"test\" {\n  cluster = \"c\"\n  release_name = \"Kueue!\"\n}", `is not a valid Kubernetes name`},
	}
}

// Every rule, each refused by terraform plan from the configuration alone: not one call reaches GKE (and so none
// reaches a cluster, whose address only GKE knows). The cases reach an emulator of their own, so that the count is
// theirs and the test runs beside the others.
func TestAccBadInput(t *testing.T) {
	t.Parallel()
	cases := badInputCases()
	if len(cases) < 30 {
		t.Fatalf("only %d bad-input cases", len(cases))
	}
	own := gkeemu.New(gkeemu.Options{Tokens: []string{testToken}})
	srv := httptest.NewServer(own)
	t.Cleanup(srv.Close)
	// The group returns once its cases, side by side, are done.
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
				t.Parallel()
				resource.Test(t, resource.TestCase{
					ProtoV6ProviderFactories: testProviders,
					Steps:                    []resource.TestStep{{Config: onEndpoint(tc.config, srv.URL), PlanOnly: true, ExpectError: messageRE(tc.want)}},
				})
			})
		}
	})
	for m, n := range own.Calls() {
		if n > 0 {
			t.Errorf("bad input reached GKE: %s called %d times", m, n)
		}
	}
	// The count above can only see calls that reach the test's emulator: a read the configuration allows must.
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{Config: onEndpoint("data \"dwsfallback_rayjob\" \"j\" {\n  cluster = \"nowhere\"\n  name = \"j\"\n}\n", srv.URL),
			PlanOnly: true, ExpectError: regexp.MustCompile(`nowhere`)}},
	})
	if own.Calls()["GetCluster"] == 0 {
		t.Errorf("a plan that reads a cluster did not reach the emulator its configuration names (calls %v): the count above proves nothing", own.Calls())
	}
}

// onEndpoint points a configuration's provider at endpoint, unless the configuration names an endpoint itself (one
// the provider refuses: a case of its own).
func onEndpoint(config, endpoint string) string {
	const block = "provider \"dwsfallback\" {\n"
	switch {
	case strings.Contains(config, "container_endpoint"):
		return config
	case strings.Contains(config, block):
		return strings.Replace(config, block, block+"  container_endpoint = "+strconv.Quote(endpoint)+"\n", 1)
	case strings.Contains(config, `provider "dwsfallback"`):
		panic("onEndpoint cannot place the endpoint in this provider block:\n" + config)
	}
	return block + "  container_endpoint = " + strconv.Quote(endpoint) + "\n}\n" + config
}
