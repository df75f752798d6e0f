package rayjob

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	fwschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueuefake "sigs.k8s.io/kueue/client-go/clientset/versioned/fake"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// tutorialJob is the resource's model for the tutorial's job 1.
func tutorialJob() *rayJobModel {
	str := func(s string) types.String { return types.StringValue(s) }
	return &rayJobModel{
		Namespace: str("default"), Name: str("PREFIX-rayjob-1"), Queue: str("PREFIX-user-queue"), Elastic: types.BoolValue(true),
		Entrypoint: str("python /app/train.py"), Drift: tfdrift.List(nil),
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
	t.Parallel()
	// The acceptance tests' copy of the tutorial's manifest, which they apply with kubectl.
	b, err := os.ReadFile("../../provider/testdata/tutorial-rayjob.yaml")
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	m := makeJob().GPU().Obj()
	gw := m.GPUWorkers
	job, err := expandRayJob(m)
	if err != nil {
		t.Fatal(err)
	}
	g := job.Spec.RayClusterSpec.WorkerGroupSpecs[0]
	pod := g.Template.Spec
	if g.NumOfHosts != 1 || pod.NodeSelector[wellknown.GPUAcceleratorLabel] != "nvidia-h100-80gb" || len(pod.NodeSelector) != 1 {
		t.Errorf("worker group hosts %d, selector %v; want 1 host selecting the H100 type only", g.NumOfHosts, pod.NodeSelector)
	}
	if gpus := pod.Containers[0].Resources.Limits[wellknown.GPUResource]; gpus.Value() != 8 {
		t.Errorf("nvidia.com/gpu limit = %s, want 8", gpus.String())
	}
	var tolerated []string
	for _, tol := range pod.Tolerations {
		tolerated = append(tolerated, tol.Key)
	}
	if diff := cmp.Diff([]string{wellknown.GPUResource, wellknown.QueuedTaint}, tolerated); diff != "" {
		t.Errorf("tolerations (-want +got):\n%s", diff)
	}
	back := readJob(job)
	if back.TPUWorkers != nil || back.GPUWorkers == nil {
		t.Fatalf("import read tpu_workers %v, gpu_workers %v; want gpu_workers only", back.TPUWorkers, back.GPUWorkers)
	}
	if diff := cmp.Diff(*gw, *back.GPUWorkers); diff != "" {
		t.Errorf("gpu_workers read back (-made +read):\n%s", diff)
	}
}

func TestFlattenJobStatus(t *testing.T) {
	t.Parallel()
	admitted := utiltesting.MakeWorkload("rayjob-x-1", "").
		Condition(metav1.Condition{Type: kueue.WorkloadAdmitted, Status: metav1.ConditionTrue}).
		Admission(utiltesting.MakeAdmission("").PodSets(
			utiltesting.MakePodSetAssignment("head").Flavor(corev1.ResourceCPU, "default-cpu").Obj(),
			utiltesting.MakePodSetAssignment("tpu-group").Flavor(corev1.ResourceCPU, "dws").Flavor(wellknown.TPUResource, "dws").Obj(),
		).Obj()).
		AdmissionCheck(kueue.AdmissionCheckState{Name: "dws-prov", State: kueue.CheckStateReady}).Obj()
	pending := utiltesting.MakeWorkload("rayjob-x-2", "").Obj()
	cases := []struct {
		name              string
		job               *rayv1.RayJob
		wl                *kueue.Workload
		wantAdmitted      bool
		wantFlavor, wantM string
		wantChecks        map[string]attr.Value
	}{
		{name: "no status, no workload yet", job: &rayv1.RayJob{}, wantChecks: map[string]attr.Value{}},
		{name: "workload queued", job: &rayv1.RayJob{}, wl: pending, wantM: "queued (no QuotaReserved condition yet)", wantChecks: map[string]attr.Value{}},
		{name: "admitted on dws", job: &rayv1.RayJob{Status: rayv1.RayJobStatus{JobDeploymentStatus: rayv1.JobDeploymentStatusInitializing}}, wl: admitted,
			wantAdmitted: true, wantFlavor: "dws", wantM: "admitted on dws; KubeRay deployment Initializing",
			wantChecks: map[string]attr.Value{"dws-prov": types.StringValue("Ready")}},
	}
	for _, tc := range cases {
		var m rayJobStatusModel
		flattenJobStatus(&m, jobProgress{job: tc.job, wl: tc.wl})
		if m.Admitted.ValueBool() != tc.wantAdmitted || m.AdmittedFlavor.ValueString() != tc.wantFlavor || m.Message.ValueString() != tc.wantM {
			t.Errorf("%s: admitted=%v flavor=%q message=%q; want %v %q %q", tc.name, m.Admitted.ValueBool(), m.AdmittedFlavor.ValueString(), m.Message.ValueString(), tc.wantAdmitted, tc.wantFlavor, tc.wantM)
		}
		if diff := cmp.Diff(types.MapValueMust(types.StringType, tc.wantChecks), m.AdmissionChecks); diff != "" {
			t.Errorf("%s: admission checks (-want +got):\n%s", tc.name, diff)
		}
		if m.StartTime.IsNull() || m.JobStatus.IsNull() {
			t.Errorf("%s: status attributes must be known, got null", tc.name)
		}
	}
}

// Read skips writing state when equal says nothing changed: every status attribute must be compared.
func TestStatusEqualSeesEveryAttribute(t *testing.T) {
	t.Parallel()
	var m rayJobStatusModel
	setUnknownStatus(&m)
	v := reflect.ValueOf(&m).Elem()
	for i := 0; i < v.NumField(); i++ {
		o := m
		f := reflect.ValueOf(&o).Elem().Field(i)
		switch f.Interface().(type) {
		case types.String:
			f.Set(reflect.ValueOf(types.StringValue("changed")))
		case types.Bool:
			f.Set(reflect.ValueOf(types.BoolValue(true)))
		case types.Map:
			f.Set(reflect.ValueOf(types.MapNull(types.StringType)))
		default:
			t.Fatalf("field %s has a type this test does not change", v.Type().Field(i).Name)
		}
		if m.equal(o) {
			t.Errorf("equal misses a change of %s", v.Type().Field(i).Name)
		}
	}
}

// TestReadSpec changes one managed field of a submitted job at a time, as kubectl patch would, and checks that Read
// shows exactly that change in state; and that what Kueue and KubeRay add is not drift.
func TestReadSpec(t *testing.T) {
	t.Parallel()
	str := types.StringValue
	worker := func(j *rayv1.RayJob) *rayv1.WorkerGroupSpec { return &j.Spec.RayClusterSpec.WorkerGroupSpecs[0] }
	head := func(j *rayv1.RayJob) *corev1.PodSpec { return &j.Spec.RayClusterSpec.HeadGroupSpec.Template.Spec }
	i32 := func(n int32) *int32 { return &n }
	cases := []struct {
		name  string
		patch func(*rayv1.RayJob)
		// want changes the expected state; nil means no drift.
		want func(*rayJobModel)
	}{
		{name: "entrypoint", patch: func(j *rayv1.RayJob) { j.Spec.Entrypoint = "python /app/other.py" },
			want: func(m *rayJobModel) { m.Entrypoint = str("python /app/other.py") }},
		{name: "runtime env", patch: func(j *rayv1.RayJob) { j.Spec.RuntimeEnvYAML = "pip:\n- jax==0.1\n" },
			want: func(m *rayJobModel) {
				m.RuntimeEnv = &runtimeEnvModel{Pip: types.ListValueMust(types.StringType, []attr.Value{str("jax==0.1")})}
			}},
		{name: "runtime env removed", patch: func(j *rayv1.RayJob) { j.Spec.RuntimeEnvYAML = "" },
			want: func(m *rayJobModel) { m.RuntimeEnv = nil }},
		{name: "head image", patch: func(j *rayv1.RayJob) { head(j).Containers[0].Image = "ray:other" },
			want: func(m *rayJobModel) { m.Image = str("ray:other") }},
		{name: "worker image", patch: func(j *rayv1.RayJob) { worker(j).Template.Spec.Containers[0].Image = "ray:other" },
			want: func(m *rayJobModel) { m.Image = str("ray:other") }},
		{name: "head cpu", patch: func(j *rayv1.RayJob) {
			head(j).Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("3")
		}, want: func(m *rayJobModel) { m.Head.CPU = str("3") }},
		{name: "head memory limit", patch: func(j *rayv1.RayJob) {
			head(j).Containers[0].Resources.Limits[corev1.ResourceMemory] = resource.MustParse("8Gi")
		}, want: func(m *rayJobModel) { m.Head.Memory = str("8Gi") }},
		{name: "head and worker image: the head's shows", patch: func(j *rayv1.RayJob) {
			head(j).Containers[0].Image = "ray:head"
			worker(j).Template.Spec.Containers[0].Image = "ray:worker"
		}, want: func(m *rayJobModel) { m.Image = str("ray:head") }},
		{name: "head container renamed", patch: func(j *rayv1.RayJob) { head(j).Containers[0].Name = "other" },
			want: func(m *rayJobModel) { m.Head = nil }},
		{name: "chips request alone", patch: func(j *rayv1.RayJob) {
			worker(j).Template.Spec.Containers[0].Resources.Requests[wellknown.TPUResource] = resource.MustParse("8")
		}, want: func(m *rayJobModel) { m.TPUWorkers.ChipsPerNode = types.Int64Value(8) }},
		{name: "worker cpu limit alone", patch: func(j *rayv1.RayJob) {
			worker(j).Template.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU] = resource.MustParse("16")
		}, want: func(m *rayJobModel) { m.TPUWorkers.CPU = str("16") }},
		{name: "worker cpu", patch: func(j *rayv1.RayJob) {
			worker(j).Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("4")
		}, want: func(m *rayJobModel) { m.TPUWorkers.CPU = str("4") }},
		{name: "worker memory", patch: func(j *rayv1.RayJob) {
			worker(j).Template.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse("32Gi")
		}, want: func(m *rayJobModel) { m.TPUWorkers.Memory = str("32Gi") }},
		{name: "chips", patch: func(j *rayv1.RayJob) {
			c := &worker(j).Template.Spec.Containers[0]
			c.Resources.Limits[wellknown.TPUResource], c.Resources.Requests[wellknown.TPUResource] = resource.MustParse("8"), resource.MustParse("8")
		}, want: func(m *rayJobModel) { m.TPUWorkers.ChipsPerNode = types.Int64Value(8) }},
		{name: "replicas", patch: func(j *rayv1.RayJob) { worker(j).Replicas = i32(2) },
			want: func(m *rayJobModel) { m.TPUWorkers.Replicas = types.Int64Value(2) }},
		{name: "min replicas", patch: func(j *rayv1.RayJob) { worker(j).MinReplicas = i32(0) },
			want: func(m *rayJobModel) { m.TPUWorkers.MinReplicas = types.Int64Value(0) }},
		{name: "max replicas", patch: func(j *rayv1.RayJob) { worker(j).MaxReplicas = i32(4) },
			want: func(m *rayJobModel) { m.TPUWorkers.MaxReplicas = types.Int64Value(4) }},
		{name: "group name", patch: func(j *rayv1.RayJob) { worker(j).GroupName = "other" },
			want: func(m *rayJobModel) { m.TPUWorkers.GroupName = str("other") }},
		{name: "worker topology selector", patch: func(j *rayv1.RayJob) { worker(j).Template.Spec.NodeSelector[wellknown.TPUTopologyLabel] = "2x4" },
			want: func(m *rayJobModel) { m.TPUWorkers.Topology = str("2x4") }},
		{name: "worker accelerator selector", patch: func(j *rayv1.RayJob) {
			worker(j).Template.Spec.NodeSelector[wellknown.TPUAcceleratorLabel] = "tpu-v5-lite-podslice"
		},
			want: func(m *rayJobModel) { m.TPUWorkers.Accelerator = str("tpu-v5-lite-podslice") }},
		{name: "queued toleration removed", patch: func(j *rayv1.RayJob) {
			worker(j).Template.Spec.Tolerations = worker(j).Template.Spec.Tolerations[:1]
		}, want: func(m *rayJobModel) { m.TPUWorkers = nil }},
		{name: "hosts per slice", patch: func(j *rayv1.RayJob) { worker(j).NumOfHosts = 2 },
			want: func(m *rayJobModel) { m.TPUWorkers = nil }},
		{name: "head node selector", patch: func(j *rayv1.RayJob) { head(j).NodeSelector["cloud.google.com/gke-nodepool"] = "other-pool" },
			want: func(m *rayJobModel) {
				m.Head.NodeSelector = types.MapValueMust(types.StringType, map[string]attr.Value{"cloud.google.com/gke-nodepool": str("other-pool")})
			}},
		{name: "env", patch: func(j *rayv1.RayJob) {
			head(j).Containers[0].Env = []corev1.EnvVar{{Name: "A", Value: "b"}}
		}, want: func(m *rayJobModel) {
			m.Env = types.MapValueMust(types.StringType, map[string]attr.Value{"A": str("b")})
		}},
		{name: "label added", patch: func(j *rayv1.RayJob) { j.Labels["team"] = "b" },
			want: func(m *rayJobModel) {
				m.Labels = types.MapValueMust(types.StringType, map[string]attr.Value{"team": str("b")})
			}},
		{name: "annotation added", patch: func(j *rayv1.RayJob) { j.Annotations["note"] = "x" },
			want: func(m *rayJobModel) {
				m.Annotations = types.MapValueMust(types.StringType, map[string]attr.Value{"note": str("x")})
			}},
		{name: "queue label", patch: func(j *rayv1.RayJob) { j.Labels[wellknown.QueueNameLabel] = "other-queue" },
			want: func(m *rayJobModel) { m.Queue = str("other-queue") }},
		{name: "elastic annotation removed", patch: func(j *rayv1.RayJob) { delete(j.Annotations, wellknown.ElasticJobAnnotation) },
			want: func(m *rayJobModel) { m.Elastic = types.BoolValue(false) }},
		{name: "head mount path", patch: func(j *rayv1.RayJob) { head(j).Containers[0].VolumeMounts[0].MountPath = "/code" },
			want: func(m *rayJobModel) { m.FilesMountPath = str("/code") }},
		{name: "mount path", patch: func(j *rayv1.RayJob) {
			head(j).Containers[0].VolumeMounts[0].MountPath = "/code"
			worker(j).Template.Spec.Containers[0].VolumeMounts[0].MountPath = "/code"
		}, want: func(m *rayJobModel) { m.FilesMountPath = str("/code") }},
		{name: "files ConfigMap", patch: func(j *rayv1.RayJob) {
			head(j).Volumes[0].ConfigMap.Name = "other-files"
			worker(j).Template.Spec.Volumes[0].ConfigMap.Name = "other-files"
		}, want: func(m *rayJobModel) { m.FilesConfigMap = str("other-files") }},
		{name: "worker's files ConfigMap", patch: func(j *rayv1.RayJob) { worker(j).Template.Spec.Volumes[0].ConfigMap.Name = "other-files" },
			want: func(m *rayJobModel) { m.FilesConfigMap = str("other-files") }},
		{name: "compute class selector", patch: func(j *rayv1.RayJob) {
			worker(j).Template.Spec.NodeSelector[wellknown.ComputeClassLabel] = "other-class"
		},
			want: func(m *rayJobModel) { m.ComputeClass = str("other-class") }},
		{name: "shutdown flag", patch: func(j *rayv1.RayJob) { j.Spec.ShutdownAfterJobFinishes = false },
			want: func(m *rayJobModel) { m.ShutdownAfterJobFinishes = types.BoolValue(false) }},
		{name: "autoscaling", patch: func(j *rayv1.RayJob) { f := false; j.Spec.RayClusterSpec.EnableInTreeAutoscaling = &f },
			want: func(m *rayJobModel) { m.EnableInTreeAutoscaling = types.BoolValue(false) }},

		// What Kueue, KubeRay, kubectl and the API server add is not drift.
		{name: "Kueue admits: suspend, flavor node labels and tolerations", patch: func(j *rayv1.RayJob) {
			j.Spec.Suspend = true
			worker(j).Template.Spec.NodeSelector["cloud.google.com/gke-nodepool"] = "dws-pool"
			worker(j).Template.Spec.Tolerations = append(worker(j).Template.Spec.Tolerations, corev1.Toleration{Key: "x", Operator: corev1.TolerationOpExists})
			head(j).NodeSelector["kueue-added"] = "v"
		}},
		{name: "labels and annotations of Kueue, KubeRay and kubectl", patch: func(j *rayv1.RayJob) {
			j.Labels["kueue.x-k8s.io/managed"], j.Labels["ray.io/originated-from"] = "true", "x"
			j.Annotations[corev1.LastAppliedConfigAnnotation] = "{}"
			j.Annotations["kueue.x-k8s.io/workload"] = "w"
			j.Annotations[specHashAnnotation] = "abc"
		}},
		{name: "CRD defaults", patch: func(j *rayv1.RayJob) {
			j.Spec.SubmissionMode = rayv1.K8sJobMode
			j.Spec.TTLSecondsAfterFinished = 0
			head(j).Containers[0].ImagePullPolicy = corev1.PullIfNotPresent
		}},
		{name: "same quantity spelled otherwise", patch: func(j *rayv1.RayJob) {
			head(j).Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("2000m")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			submitted := tutorialJob()
			job, err := expandRayJob(submitted)
			if err != nil {
				t.Fatal(err)
			}
			job.Annotations = withSpecHash(job)
			tc.patch(job)
			got, want := tutorialJob(), tutorialJob()
			if tc.want != nil {
				tc.want(want)
			}
			changed := readSpec(got, job)
			if changed != (tc.want != nil) {
				t.Errorf("readSpec reported changed = %v, want %v", changed, tc.want != nil)
			}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(rayJobModel{}), cmp.Comparer(func(a, b attr.Value) bool { return a.Equal(b) }),
				cmpopts.IgnoreFields(rayJobModel{}, "Timeouts")); diff != "" {
				t.Errorf("state after Read (-want +got):\n%s", diff)
			}
			// The next refresh reads the state this one wrote: a head read as gone made it dereference nil. (It
			// need not read as unchanged: a job whose copies disagree, head and worker image say, is no job the
			// state can make, and the drift attribute keeps its plan.)
			readSpec(got, job)
		})
	}
}

// TestReadSpecGPU: the GPU worker group's fields are read back as the TPU group's are.
func TestReadSpecGPU(t *testing.T) {
	t.Parallel()
	gpuJob := func() *rayJobModel { return makeJob().GPU().Obj() }
	job, err := expandRayJob(gpuJob())
	if err != nil {
		t.Fatal(err)
	}
	g := &job.Spec.RayClusterSpec.WorkerGroupSpecs[0]
	two := int32(2)
	g.Replicas = &two
	g.Template.Spec.NodeSelector[wellknown.GPUAcceleratorLabel] = "nvidia-l4"
	got := gpuJob()
	if !readSpec(got, job) {
		t.Fatal("readSpec saw no change")
	}
	if got.GPUWorkers.Replicas.ValueInt64() != 2 || got.GPUWorkers.Accelerator.ValueString() != "nvidia-l4" || got.GPUWorkers.GPUs.ValueInt64() != 8 {
		t.Errorf("gpu_workers after Read = %+v, want replicas 2 and accelerator nvidia-l4, gpus still 8", *got.GPUWorkers)
	}
}

// TestNoNodeForClassPods: a pod on a ComputeClass is not stuck while GKE tries the class's next priority; once no
// priority is left (every one backed off), it is, and the report quotes the class's status.
func TestNoNodeForClassPods(t *testing.T) {
	t.Parallel()
	now := time.Now()
	pod := unschedulableWorker(wellknown.ComputeClassLabel, "tpu-fallback", now)
	event := workerEvent
	class := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cloud.google.com/v1", "kind": "ComputeClass", "metadata": map[string]any{"name": "tpu-fallback"},
		"status": map[string]any{"priorityStatuses": []any{map[string]any{"identifier": "0", "conditions": []any{map[string]any{
			"type": "ProvisioningConstrained", "reason": "OutOfResources", "message": "NodeProvisioning ... In backoff until later."}}}}},
	}}
	c := &kube.Clients{Host: "https://k", Dynamic: dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(), class)}
	failed := event("e1", "FailedScaleUp", "Node scale up in zones us-east5-b associated with this pod failed: GCE out of resources.", now.Add(-50*time.Second))
	c.Core = k8sfake.NewSimpleClientset(failed).CoreV1()
	if got, err := noNodeFor(context.Background(), c, []corev1.Pod{pod}, now); err != nil || got != "" {
		t.Errorf("after a failed priority: %q (%v); want no report while GKE tries the next", got, err)
	}
	backedOff := event("e2", "NotTriggerScaleUp", "pod didn't trigger scale-up: 2 in backoff after failed scale-up", now.Add(-time.Second))
	c.Core = k8sfake.NewSimpleClientset(failed, backedOff).CoreV1()
	got, err := noNodeFor(context.Background(), c, []corev1.Pod{pod}, now)
	for _, want := range []string{"(ComputeClass tpu-fallback)", "2 in backoff after failed scale-up", "priority 0: ProvisioningConstrained (OutOfResources)"} {
		if err != nil || !strings.Contains(got, want) {
			t.Errorf("every priority backed off: %q (%v); want it to say %q", got, err, want)
		}
	}
}

// TestNoNodeForFullReservation: a scale-up that a full reservation refused (GKE's class RESERVATION_CAPACITY_EXCEEDED)
// is reported with what to do about a reservation, not about a zone out of capacity.
func TestNoNodeForFullReservation(t *testing.T) {
	t.Parallel()
	now := time.Now()
	pod := unschedulableWorker(wellknown.NodePoolLabel, "on-demand-pool", now)
	failed := workerEvent("e1", "FailedScaleUp",
		"gkeemu: node scale up in zone us-east5-b failed: reservation tpu-res has no room for 4 more VMs (RESERVATION_CAPACITY_EXCEEDED).", now.Add(-time.Second))
	c := &kube.Clients{Host: "https://k", Core: k8sfake.NewSimpleClientset(failed).CoreV1()}
	got, err := noNodeFor(context.Background(), c, []corev1.Pod{pod}, now)
	for _, want := range []string{"node pool on-demand-pool", "reservation tpu-res has no room", "within the reservation"} {
		if err != nil || !strings.Contains(got, want) {
			t.Errorf("noNodeFor = %q (%v); want it to say %q", got, err, want)
		}
	}
	if strings.Contains(got, "GKE could not add nodes there") {
		t.Errorf("noNodeFor = %q; a full reservation is not a zone out of capacity", got)
	}
}

// unschedulableWorker is a job's worker pod that selects key=value and has waited a minute for a node.
func unschedulableWorker(key, value string, now time.Time) corev1.Pod {
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "job-worker", Namespace: "default", UID: "w1"},
		Spec:       corev1.PodSpec{NodeSelector: map[string]string{key: value}},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
			Reason: corev1.PodReasonUnschedulable, LastTransitionTime: metav1.NewTime(now.Add(-time.Minute))}}},
	}
}

// workerEvent is the cluster autoscaler's event on that pod.
func workerEvent(name, reason, msg string, at time.Time) *corev1.Event {
	return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Reason: reason, Message: msg,
		InvolvedObject: corev1.ObjectReference{UID: "w1"}, Source: corev1.EventSource{Component: autoscalerSource},
		LastTimestamp: metav1.NewTime(at)}
}

// A RayJob gone before its destroy (an earlier destroy failed waiting for its Workloads) is found by its Workloads'
// owner, so the destroy still waits for them; another job's Workloads are not its.
func TestOrphanedWorkloadOwner(t *testing.T) {
	wl := func(name, owner, uid string) *kueue.Workload {
		return utiltesting.MakeWorkload(name, "default").JobUID(uid).OwnerReference(rayv1.GroupVersion.WithKind("RayJob"), owner, uid).Obj()
	}
	c := &kube.Clients{Host: "https://k", Kueue: kueuefake.NewSimpleClientset(wl("rayjob-a-1", "a", "uid-a"), wl("rayjob-b-1", "b", "uid-b"))}
	for name, want := range map[string]string{"a": "uid-a", "b": "uid-b", "c": ""} {
		got, err := orphanedWorkloadOwner(context.Background(), c, "default", name)
		if err != nil || got != want {
			t.Errorf("orphanedWorkloadOwner(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
}

// TestOwnLabels: Kueue's and KubeRay's keys are theirs by domain (and subdomain), not by a substring, so a team's
// own xray.io key stays the resource's, and its drift shows.
func TestOwnLabels(t *testing.T) {
	in := map[string]string{
		"kueue.x-k8s.io/queue-name": "q", "provreq.kueue.x-k8s.io/x": "1", "ray.io/cluster": "c",
		"xray.io/team": "a", "array.io/x": "b", "team": "c",
	}
	want := map[string]string{"xray.io/team": "a", "array.io/x": "b", "team": "c"}
	if diff := cmp.Diff(want, ownLabels(in)); diff != "" {
		t.Errorf("ownLabels (-want +got):\n%s", diff)
	}
	in["autoscaling.x-k8s.io/consumed"] = "x"
	in[specHashAnnotation] = "h"
	if diff := cmp.Diff(want, ownAnnotations(in)); diff != "" {
		t.Errorf("ownAnnotations (-want +got):\n%s", diff)
	}
}

// TestFillScalarsMatchesFramework: a job's state encoded by the framework and decoded by tfvalue.FillScalars (the
// server's fast Read) is the model the framework encoded, timeouts aside (FillScalars leaves them zero).
func TestFillScalarsMatchesFramework(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var sr fwresource.SchemaResponse
	(&rayJobResource{}).Schema(ctx, fwresource.SchemaRequest{}, &sr)
	str := func(s string) types.String { return types.StringValue(s) }
	gpu := tutorialJob()
	gpu.TPUWorkers = nil
	gpu.GPUWorkers = &gpuWorkersModel{GroupName: str("gpu-group"), Accelerator: str("nvidia-h100-80gb"), GPUs: types.Int64Value(8),
		Replicas: types.Int64Value(1), MinReplicas: types.Int64Value(0), MaxReplicas: types.Int64Value(2), CPU: str("8"), Memory: str("32Gi")}
	gpu.Env = types.MapValueMust(types.StringType, map[string]attr.Value{"JAX_PLATFORMS": str("cuda")})
	gpu.Labels = types.MapValueMust(types.StringType, map[string]attr.Value{"team": str("ml")})
	gpu.WaitFor, gpu.ResubmitWhenDeleted = str("running"), types.BoolValue(true)
	for name, m := range map[string]*rayJobModel{"tutorial": tutorialJob(), "gpu, env, labels, wait": gpu, "empty": {}} {
		st := tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(sr.Schema.Type().TerraformType(ctx), nil)}
		m.Timeouts = rayJobTimeoutsNull()
		typedNulls(ctx, reflect.ValueOf(m).Elem(), sr.Schema, tftypes.NewAttributePath())
		if d := st.Set(ctx, m); d.HasError() {
			t.Fatalf("%s: %v", name, d)
		}
		var fast, framework rayJobModel
		if !tfvalue.FillScalars(ctx, st.Raw, &fast) {
			t.Fatalf("%s: FillScalars refused the state", name)
		}
		if d := st.Get(ctx, &framework); d.HasError() {
			t.Fatalf("%s: %v", name, d)
		}
		framework.Timeouts = fast.Timeouts
		if !reflect.DeepEqual(fast, framework) {
			t.Errorf("%s: FillScalars decoded\n%+v\nthe framework\n%+v", name, fast, framework)
		}
	}
}

// typedNulls gives every attribute a model leaves at Go's zero value (a value of no type, which the framework cannot
// encode) the null of its schema type, in nested models too.
func typedNulls(ctx context.Context, v reflect.Value, sch fwschema.Schema, at *tftypes.AttributePath) {
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Tag.Get("tfsdk")
		f, p := v.Field(i), at.WithAttributeName(name)
		typ, err := sch.TypeAtTerraformPath(ctx, p)
		switch {
		case v.Type().Field(i).Anonymous && f.Kind() == reflect.Struct:
			typedNulls(ctx, f, sch, at)
		case name == "" || err != nil:
		case f.Kind() == reflect.Pointer && !f.IsNil():
			typedNulls(ctx, f.Elem(), sch, p)
		case f.Kind() != reflect.Pointer && f.IsZero():
			if nv, err := typ.ValueFromTerraform(ctx, tftypes.NewValue(typ.TerraformType(ctx), nil)); err == nil && reflect.TypeOf(nv) == f.Type() {
				f.Set(reflect.ValueOf(nv))
			}
		}
	}
}
