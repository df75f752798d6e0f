package provider

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// tutorialJob is the resource's model for the tutorial's job 1.
func tutorialJob() *rayJobModel {
	str := func(s string) types.String { return types.StringValue(s) }
	return &rayJobModel{
		Namespace: str("default"), Name: str("PREFIX-rayjob-1"), Queue: str("PREFIX-user-queue"), Elastic: types.BoolValue(true),
		Entrypoint:     str("python /app/train.py"),
		Files:          types.MapValueMust(types.StringType, map[string]attr.Value{"train.py": str("print('hi')\n")}),
		FilesConfigMap: str("jax-train-script"), FilesMountPath: str("/app"),
		RuntimeEnv: &runtimeEnvModel{Pip: types.ListValueMust(types.StringType, []attr.Value{str("jax[tpu]==0.8.2"), str("pandas==2.3.3")})},
		Image:      str("rayproject/ray:2.53.0-py311"),
		Head: &headModel{CPU: str("2"), Memory: str("4Gi"),
			NodeSelector: types.MapValueMust(types.StringType, map[string]attr.Value{"cloud.google.com/gke-nodepool": str("default-pool")})},
		TPUWorkers: &tpuWorkersModel{GroupName: str("tpu-group"), Accelerator: str("tpu-v6e-slice"), Topology: str("4x4"),
			ChipsPerNode: types.Int64Value(4), Replicas: types.Int64Value(1), MinReplicas: types.Int64Value(1), MaxReplicas: types.Int64Value(2),
			CPU: str("8"), Memory: str("16Gi")},
		Env: types.MapNull(types.StringType), Labels: types.MapNull(types.StringType), Annotations: types.MapNull(types.StringType),
		ShutdownAfterJobFinishes: types.BoolValue(true), EnableInTreeAutoscaling: types.BoolValue(true),
	}
}

func TestExpandRayJobMatchesTutorial(t *testing.T) {
	b, err := os.ReadFile("testdata/tutorial-rayjob.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := &rayv1.RayJob{}
	if err := yaml.UnmarshalStrict([]byte(strings.ReplaceAll(string(b), "JOB_ID", "1")), want); err != nil {
		t.Fatal(err)
	}
	want.Namespace = "default" // kubectl applies it to the current namespace
	got, err := expandRayJob(tutorialJob())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
		t.Errorf("RayJob differs from the tutorial's manifest (-tutorial +provider):\n%s", diff)
	}
}

func TestNumOfHosts(t *testing.T) {
	cases := []struct {
		topology string
		chips    int64
		want     int32
		err      bool
	}{
		{"4x4", 4, 4, false}, {"2x2", 4, 1, false}, {"2x4", 8, 1, false}, {"2x2x4", 4, 4, false}, {"16x16", 4, 64, false},
		{"4x4", 3, 0, true}, {"4x4", 0, 0, true}, {"4by4", 4, 0, true},
	}
	for _, tc := range cases {
		got, err := numOfHosts(tc.topology, tc.chips)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("numOfHosts(%q, %d) = %d, %v; want %d, error %v", tc.topology, tc.chips, got, err, tc.want, tc.err)
		}
	}
}

// A pip line is one YAML scalar whatever it holds: " #" or ": " in it must not turn into a comment or a mapping.
func TestRuntimeEnvYAMLKeepsEachLine(t *testing.T) {
	pip := []string{"jax[tpu]==0.8.2", "pkg @ https://example.invalid/pkg.whl#sha256=abc", "name: colon", "# hash first", "'quoted'"}
	text, err := runtimeEnvYAML(pip)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Pip []string `json:"pip"`
	}
	if err := yaml.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("runtimeEnvYAML gave YAML that does not parse: %v\n%s", err, text)
	}
	if diff := cmp.Diff(pip, got.Pip); diff != "" {
		t.Errorf("pip read back from\n%s(-want +got):\n%s", text, diff)
	}
	if tutorial, _ := runtimeEnvYAML([]string{"jax[tpu]==0.8.2", "pandas==2.3.3"}); tutorial != "pip:\n  - jax[tpu]==0.8.2\n  - pandas==2.3.3\n" {
		t.Errorf("the tutorial's runtime env is written %q, not as the tutorial writes it", tutorial)
	}
}

// A GPU job's worker group asks for whole nodes' GPUs, selects the GPU type, tolerates the GPU and queued taints,
// and reads back (import) as the gpu_workers it was made from.
func TestGPUWorkersRoundTrip(t *testing.T) {
	m := tutorialJob()
	str := func(s string) types.String { return types.StringValue(s) }
	gw := &gpuWorkersModel{GroupName: str("gpu-group"), Accelerator: str("nvidia-h100-80gb"), GPUs: types.Int64Value(8),
		Replicas: types.Int64Value(1), MinReplicas: types.Int64Value(1), MaxReplicas: types.Int64Value(1), CPU: str("8"), Memory: str("64Gi")}
	m.TPUWorkers, m.GPUWorkers = nil, gw
	job, err := expandRayJob(m)
	if err != nil {
		t.Fatal(err)
	}
	g := job.Spec.RayClusterSpec.WorkerGroupSpecs[0]
	pod := g.Template.Spec
	if g.NumOfHosts != 1 || pod.NodeSelector[gpuAcceleratorLabel] != "nvidia-h100-80gb" || len(pod.NodeSelector) != 1 {
		t.Errorf("worker group hosts %d, selector %v; want 1 host selecting the H100 type only", g.NumOfHosts, pod.NodeSelector)
	}
	if gpus := pod.Containers[0].Resources.Limits[gpuResource]; gpus.Value() != 8 {
		t.Errorf("nvidia.com/gpu limit = %s, want 8", gpus.String())
	}
	var tolerated []string
	for _, tol := range pod.Tolerations {
		tolerated = append(tolerated, tol.Key)
	}
	if diff := cmp.Diff([]string{gpuResource, queuedTaint}, tolerated); diff != "" {
		t.Errorf("tolerations (-want +got):\n%s", diff)
	}
	back := &rayJobModel{}
	flattenRayJobSpec(back, job, nil)
	if back.TPUWorkers != nil || back.GPUWorkers == nil {
		t.Fatalf("import read tpu_workers %v, gpu_workers %v; want gpu_workers only", back.TPUWorkers, back.GPUWorkers)
	}
	if diff := cmp.Diff(*gw, *back.GPUWorkers); diff != "" {
		t.Errorf("gpu_workers read back (-made +read):\n%s", diff)
	}
}
