package provider

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// gpuFallbackConfig is the GPU variant of the tutorial: an H100 pool pair, a queue whose flavors take their node
// labels from the pair (quota for one 8-GPU job on demand), and jobs that ask for a whole node each.
func gpuFallbackConfig(cluster string, ids ...int) string {
	cfg := fmt.Sprintf(`
resource "dwsfallback_gpu_pool_pair" "test" {
  cluster            = %[1]q
  machine_type       = "a3-highgpu-8g"
  gpu_driver_version = "latest"
  max_nodes          = 2
  on_demand          = { name = "gpu-on-demand" }
  flex_start         = { name = "gpu-dws" }
}

resource "dwsfallback_kueue_queue" "test" {
  cluster = %[1]q
  name    = "gpu-cluster-queue"
  flavors = [
    { name = "gpu-default-cpu", node_labels = { "cloud.google.com/gke-nodepool" = "default-pool" },
      quotas = { cpu = "10", memory = "20Gi", "nvidia.com/gpu" = "0" } },
    { name = "gpu-on-demand", node_labels = dwsfallback_gpu_pool_pair.test.on_demand.node_labels,
      quotas = { cpu = "40", memory = "300Gi", "nvidia.com/gpu" = "8" } },
    { name = "gpu-dws", node_labels = dwsfallback_gpu_pool_pair.test.flex_start.node_labels,
      quotas = { cpu = "1000000000", memory = "1000000000Gi", "nvidia.com/gpu" = "1000000000" },
      provisioning = { admission_check = "gpu-dws-prov", config = "gpu-dws-config", managed_resources = ["nvidia.com/gpu"] } },
  ]
  local_queues = [{ namespace = "default", name = "gpu-user-queue" }]
}
`, cluster)
	for i, id := range ids {
		after := "dwsfallback_kueue_queue.test"
		if i > 0 {
			after += fmt.Sprintf(", dwsfallback_rayjob.job%d", ids[i-1])
		}
		cfg += fmt.Sprintf(`
resource "dwsfallback_rayjob" "job%[2]d" {
  cluster    = %[1]q
  name       = "gpu-rayjob-%[2]d"
  queue      = "gpu-user-queue"
  elastic    = true
  entrypoint = "python /app/train.py"
  files      = { "train.py" = "print('training')\n" }
  image      = "rayproject/ray:2.53.0-py311-gpu"
  head       = { cpu = "2", memory = "4Gi", node_selector = { "cloud.google.com/gke-nodepool" = "default-pool" } }
  gpu_workers = {
    accelerator = dwsfallback_gpu_pool_pair.test.gpu_type
    gpus        = dwsfallback_gpu_pool_pair.test.gpus_per_node
    cpu = "8", memory = "64Gi"
  }
  wait_for   = "running"
  depends_on = [%[3]s]
}
`, cluster, id, after)
	}
	return cfg
}

// TestAccGPUFallback is the tutorial for GPUs, through Terraform on the local stack: job 1's worker runs on an
// on-demand H100 node the autoscaler adds, job 2 falls back to DWS and runs on a node DWS provisions, each node
// labelled, tainted and sized as GKE makes GPU nodes.
func TestAccGPUFallback(t *testing.T) {
	requireStack(t)
	createRayCluster(t, "acc-gpu")
	dws.SetMode(gkeemu.DWSProvision, 500*time.Millisecond)
	pools := func(job string, pool string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue("dwsfallback_rayjob."+job, tfjsonpath.New("nodes_by_pool"),
			knownvalue.MapExact(map[string]knownvalue.Check{"default-pool": knownvalue.Int64Exact(1), pool: knownvalue.Int64Exact(1)}))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: gpuFallbackConfig("acc-gpu", 1, 2),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("dwsfallback_gpu_pool_pair.test", tfjsonpath.New("max_gpus"), knownvalue.Int64Exact(16)),
				statecheck.ExpectKnownValue("dwsfallback_rayjob.job1", tfjsonpath.New("admitted_flavor"), knownvalue.StringExact("gpu-on-demand")),
				statecheck.ExpectKnownValue("dwsfallback_rayjob.job2", tfjsonpath.New("admitted_flavor"), knownvalue.StringExact("gpu-dws")),
				pools("job1", "gpu-on-demand"),
				pools("job2", "gpu-dws"),
			},
			Check: func(*terraform.State) error {
				for job, pool := range map[string]string{"gpu-rayjob-1": "gpu-on-demand", "gpu-rayjob-2": "gpu-dws"} {
					nodes, err := placedOn(t, job, "worker", pool, 1)
					if err != nil {
						return err
					}
					for _, n := range nodes {
						if err := isGPUNode(n, pool == "gpu-dws"); err != nil {
							return err
						}
					}
				}
				return nil
			},
		}},
	})
}

// isGPUNode checks a node as GKE makes an H100 node: the accelerator labels, eight nvidia.com/gpu, the GPU taint (the
// cluster has a CPU pool) and, for DWS nodes, the queued taint and flex-start label.
func isGPUNode(n *corev1.Node, queued bool) error {
	gpus := n.Status.Allocatable[gkeemu.ResourceGPU]
	switch {
	case n.Labels[gkeemu.LabelGPUAccelerator] != "nvidia-h100-80gb" || n.Labels[gkeemu.LabelGPUCount] != "8" || n.Labels[gkeemu.LabelGPUDriver] != "latest":
		return fmt.Errorf("node %s labels %v, want the H100 accelerator, count 8 and driver latest", n.Name, n.Labels)
	case gpus.Value() != 8:
		return fmt.Errorf("node %s has %s nvidia.com/gpu allocatable, want 8", n.Name, gpus.String())
	case !hasTaint(n, gkeemu.TaintGPU):
		return fmt.Errorf("node %s taints %v lack nvidia.com/gpu", n.Name, n.Spec.Taints)
	case queued != hasTaint(n, gkeemu.TaintQueued) || queued != (n.Labels[gkeemu.LabelFlexStart] == "true"):
		return fmt.Errorf("node %s: queued taint %v, flex-start label %q; want both only on DWS nodes", n.Name, hasTaint(n, gkeemu.TaintQueued), n.Labels[gkeemu.LabelFlexStart])
	}
	return nil
}

// TestAccGPUPoolPair_gcloudEquivalence: the DWS docs' GPU pools made by gcloud import with an empty plan, and the
// provider's are equal to them field for field, for plan B with and without flex-start.
func TestAccGPUPoolPair_gcloudEquivalence(t *testing.T) {
	for _, flex := range []bool{true, false} {
		suffix, provisioning := "fs", "flex-start"
		if !flex {
			suffix, provisioning = "q", "queued"
		}
		byGcloud, byTerraform := createTestCluster(t, "gpu-gcloud-"+suffix), createTestCluster(t, "gpu-tf-"+suffix)
		g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
		for _, cmd := range testutil.GPUPools(byGcloud.Name, "od", "dws", "a3-highgpu-8g", "type=nvidia-h100-80gb,count=8,gpu-driver-version=latest", flex) {
			g.Run(cmd...)
		}
		fromGcloud := testPools(t, byGcloud)
		config := func(cluster string) string {
			return fmt.Sprintf(`
resource "dwsfallback_gpu_pool_pair" "test" {
  cluster            = %q
  machine_type       = "a3-highgpu-8g"
  gpu_driver_version = "latest"
  max_nodes          = 4
  on_demand          = { name = "od" }
  flex_start         = { name = "dws", provisioning = %q }
}
`, cluster, provisioning)
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviders,
			Steps: []resource.TestStep{
				{Config: config(byGcloud.Name), ResourceName: "dwsfallback_gpu_pool_pair.test", ImportState: true,
					ImportStateId: byGcloud.String() + "/nodePools/od,dws", ImportStatePersist: true},
				{Config: config(byGcloud.Name), PlanOnly: true},
			},
		})
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviders,
			Steps: []resource.TestStep{{
				Config: config(byTerraform.Name),
				Check:  samePools(t, fromGcloud, byTerraform, "od", "dws"),
			}},
		})
	}
}

// TestAccTPU7x: a multi-host TPU7x pair made by gcloud (placed by a workload policy) imports with an empty plan; one
// made by Terraform carries the same pools, and jobs land on it: job 1 on demand, job 2 on DWS, two nodes each.
func TestAccTPU7x(t *testing.T) {
	requireStack(t)
	byGcloud := createTestCluster(t, "tpu7x-gcloud")
	byTerraform := createRayCluster(t, "acc-tpu7x")
	dws.SetMode(gkeemu.DWSProvision, 500*time.Millisecond)
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	for _, cmd := range testutil.TPU7xPools(byGcloud.Name, "on-demand-pool", "dws-pool", "2x2x2", "tpu7x-2x2x2", 4) {
		g.Run(cmd...)
	}
	fromGcloud := testPools(t, byGcloud)
	pair := func(cluster string) string {
		return strings.Replace(strings.Replace(pairConfig(cluster, "on-demand-pool", "dws-pool", 4),
			`"ct6e-standard-4t"`, `"tpu7x-standard-4t"`, 1), `tpu_topology = "4x4"`, `tpu_topology = "2x2x2"`+"\n  placement_policy = \"tpu7x-2x2x2\"", 1)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: pair(byGcloud.Name), ResourceName: pairAddr, ImportState: true,
				ImportStateId: byGcloud.String() + "/nodePools/on-demand-pool,dws-pool", ImportStatePersist: true},
			{Config: pair(byGcloud.Name), PlanOnly: true},
		},
	})
	// Quota for one 2x2x2 slice (8 chips) on demand: job 2 falls back to DWS.
	cfg := pair(byTerraform.Name) + queueConfig(byTerraform.Name, "t7", 8) +
		jobsConfig(byTerraform.Name, "t7", []int{1}, `wait_for = "running"`) + strings.Replace(jobsConfig(byTerraform.Name, "t7", []int{2}, `wait_for = "running"`),
		"depends_on = [dwsfallback_kueue_queue.test]", "depends_on = [dwsfallback_kueue_queue.test, dwsfallback_rayjob.job1]", 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("tpu_accelerator"), knownvalue.StringExact("tpu7x")),
				statecheck.ExpectKnownValue(pairAddr, tfjsonpath.New("nodes_per_slice"), knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue("dwsfallback_rayjob.job1", tfjsonpath.New("num_of_hosts"), knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue("dwsfallback_rayjob.job2", tfjsonpath.New("admitted_flavor"), knownvalue.StringExact("t7-dws")),
			},
			Check: func(s *terraform.State) error {
				if err := samePools(t, fromGcloud, byTerraform, "on-demand-pool", "dws-pool")(s); err != nil {
					return err
				}
				for job, pool := range map[string]string{"t7-rayjob-1": "on-demand-pool", "t7-rayjob-2": "dws-pool"} {
					nodes, err := placedOn(t, job, "worker", pool, 2)
					if err != nil {
						return err
					}
					for _, n := range nodes {
						if n.Labels[gkeemu.LabelTPUAccelerator] != "tpu7x" || n.Labels[gkeemu.LabelTPUTopology] != "2x2x2" {
							return fmt.Errorf("node %s labels %v, want tpu7x 2x2x2", n.Name, n.Labels)
						}
					}
				}
				return nil
			},
		}},
	})
}

// TestAccUnknownMachineTypes: a machine type the provider does not know validates with a warning that says what
// it cannot check, and GKE's refusal (the emulator knows no more types than the catalog) reaches the user verbatim.
func TestAccUnknownMachineTypes(t *testing.T) {
	ref := createTestCluster(t, "acc-unknown")
	for _, tc := range []struct {
		config, warning, refusal string
	}{
		{
			config: withAttr(withAttr(strings.Replace(pairConfig(ref.Name, "od", "dws", 4), `"ct6e-standard-4t"`, `"ct9z-standard-4t"`, 1),
				`tpu_accelerator = "tpu-v9-slice"`), "chips_per_node = 4"),
			warning: "TPU machine type not known to this provider",
			refusal: `Invalid machine type "ct9z-standard-4t": it is not a supported TPU machine type.`,
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
			refusal: `Invalid machine type "a9-futuregpu-8g": machine type not found in zone.`,
		},
	} {
		tf := newTFRun(t, tc.config, "DWSFALLBACK_CONTAINER_ENDPOINT="+emuEndpoint)
		out := tf.mustRun("validate")
		if !strings.Contains(out, tc.warning) {
			t.Errorf("validate passed without the warning %q:\n%s", tc.warning, out)
		}
		out, ok := tf.run("apply", "-auto-approve")
		if ok || !strings.Contains(strings.Join(strings.Fields(out), " "), tc.refusal) {
			t.Errorf("apply: ok=%v, want GKE's refusal %q verbatim:\n%s", ok, tc.refusal, out)
		}
	}
}
