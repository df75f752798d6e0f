package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
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
	stackTest(t, 1)
	cp := on(t, createRayCluster(t, "acc-gpu"))
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
					nodes, err := placedOn(cp, job, "worker", pool, 1)
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
	gpus := n.Status.Allocatable[wellknown.GPUResource]
	switch {
	case n.Labels[wellknown.GPUAcceleratorLabel] != "nvidia-h100-80gb" || n.Labels[wellknown.GPUCountLabel] != "8" || n.Labels[wellknown.GPUDriverLabel] != "latest":
		return fmt.Errorf("node %s labels %v, want the H100 accelerator, count 8 and driver latest", n.Name, n.Labels)
	case gpus.Value() != 8:
		return fmt.Errorf("node %s has %s nvidia.com/gpu allocatable, want 8", n.Name, gpus.String())
	case !hasTaint(n, wellknown.GPUResource):
		return fmt.Errorf("node %s taints %v lack nvidia.com/gpu", n.Name, n.Spec.Taints)
	case queued != hasTaint(n, wellknown.QueuedTaint) || queued != (n.Labels[wellknown.FlexStartLabel] == "true"):
		return fmt.Errorf("node %s: queued taint %v, flex-start label %q; want both only on DWS nodes", n.Name, hasTaint(n, wellknown.QueuedTaint), n.Labels[wellknown.FlexStartLabel])
	}
	return nil
}

// TestAccGPUPoolPair_gcloudEquivalence: the DWS docs' GPU pools made by gcloud import with an empty plan, and the
// provider's are equal to them field for field, for plan B with and without flex-start.
func TestAccGPUPoolPair_gcloudEquivalence(t *testing.T) {
	t.Parallel() // GKE only, on clusters of its own
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
		config := func(cluster string) string { return gpuPairConfig(cluster, provisioning) }
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

// gpuPairConfig is an H100 pair with pools od and dws, plan B provisioned as asked.
func gpuPairConfig(cluster, provisioning string) string {
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

// TestAccGPUPoolPair_diskLeftToGKE: on a family whose default boot disk is not on record (A3 High), a disk_type the
// configuration stops naming keeps the disk the pools have: no plan that the apply could not carry out.
func TestAccGPUPoolPair_diskLeftToGKE(t *testing.T) {
	t.Parallel() // GKE only, on a cluster of its own
	ref := createTestCluster(t, "gpu-disk-left")
	withDisk := strings.Replace(gpuPairConfig(ref.Name, "flex-start"), `max_nodes          = 4`, "max_nodes          = 4\n  disk_type          = \"pd-ssd\"", 1)
	diskType := statecheck.ExpectKnownValue("dwsfallback_gpu_pool_pair.test", tfjsonpath.New("disk_type"), knownvalue.StringExact("pd-ssd"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: withDisk, ConfigStateChecks: []statecheck.StateCheck{diskType}},
			{Config: gpuPairConfig(ref.Name, "flex-start"), PlanOnly: true},
			{
				Config: gpuPairConfig(ref.Name, "flex-start"), ConfigStateChecks: []statecheck.StateCheck{diskType},
				Check: func(*terraform.State) error {
					for _, name := range []string{"od", "dws"} {
						if got := testPools(t, ref)[name].GetConfig().GetDiskType(); got != "pd-ssd" {
							return fmt.Errorf("pool %s has boot disk %q, want the pd-ssd it was made with", name, got)
						}
					}
					return nil
				},
			},
		},
	})
}
