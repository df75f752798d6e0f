package provider

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestReadSpec changes one managed field of a submitted job at a time, as kubectl patch would, and checks that Read
// shows exactly that change in state; and that what Kueue and KubeRay add is not drift.
func TestReadSpec(t *testing.T) {
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
		{name: "worker cpu", patch: func(j *rayv1.RayJob) {
			worker(j).Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("4")
		}, want: func(m *rayJobModel) { m.TPUWorkers.CPU = str("4") }},
		{name: "worker memory", patch: func(j *rayv1.RayJob) {
			worker(j).Template.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse("32Gi")
		}, want: func(m *rayJobModel) { m.TPUWorkers.Memory = str("32Gi") }},
		{name: "chips", patch: func(j *rayv1.RayJob) {
			c := &worker(j).Template.Spec.Containers[0]
			c.Resources.Limits[tpuResource], c.Resources.Requests[tpuResource] = resource.MustParse("8"), resource.MustParse("8")
		}, want: func(m *rayJobModel) { m.TPUWorkers.ChipsPerNode = types.Int64Value(8) }},
		{name: "replicas", patch: func(j *rayv1.RayJob) { worker(j).Replicas = i32(2) },
			want: func(m *rayJobModel) { m.TPUWorkers.Replicas = types.Int64Value(2) }},
		{name: "min replicas", patch: func(j *rayv1.RayJob) { worker(j).MinReplicas = i32(0) },
			want: func(m *rayJobModel) { m.TPUWorkers.MinReplicas = types.Int64Value(0) }},
		{name: "max replicas", patch: func(j *rayv1.RayJob) { worker(j).MaxReplicas = i32(4) },
			want: func(m *rayJobModel) { m.TPUWorkers.MaxReplicas = types.Int64Value(4) }},
		{name: "group name", patch: func(j *rayv1.RayJob) { worker(j).GroupName = "other" },
			want: func(m *rayJobModel) { m.TPUWorkers.GroupName = str("other") }},
		{name: "worker topology selector", patch: func(j *rayv1.RayJob) { worker(j).Template.Spec.NodeSelector[tpuTopologyLabel] = "2x4" },
			want: func(m *rayJobModel) { m.TPUWorkers.Topology = str("2x4") }},
		{name: "worker accelerator selector", patch: func(j *rayv1.RayJob) {
			worker(j).Template.Spec.NodeSelector[tpuAcceleratorLabel] = "tpu-v5-lite-podslice"
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
		{name: "queue label", patch: func(j *rayv1.RayJob) { j.Labels[queueNameLabel] = "other-queue" },
			want: func(m *rayJobModel) { m.Queue = str("other-queue") }},
		{name: "elastic annotation removed", patch: func(j *rayv1.RayJob) { delete(j.Annotations, elasticJobAnnotation) },
			want: func(m *rayJobModel) { m.Elastic = types.BoolValue(false) }},
		{name: "head mount path", patch: func(j *rayv1.RayJob) { head(j).Containers[0].VolumeMounts[0].MountPath = "/code" },
			want: func(m *rayJobModel) { m.FilesMountPath = str("/code") }},
		{name: "mount path", patch: func(j *rayv1.RayJob) {
			head(j).Containers[0].VolumeMounts[0].MountPath = "/code"
			worker(j).Template.Spec.Containers[0].VolumeMounts[0].MountPath = "/code"
		}, want: func(m *rayJobModel) { m.FilesMountPath = str("/code") }},
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
			j.Annotations[kubectlLastApplied] = "{}"
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
		})
	}
}

// TestReadSpecGPU: the GPU worker group's fields are read back as the TPU group's are.
func TestReadSpecGPU(t *testing.T) {
	gpuJob := func() *rayJobModel {
		m := tutorialJob()
		m.TPUWorkers, m.GPUWorkers = nil, &gpuWorkersModel{GroupName: types.StringValue("gpu-group"), Accelerator: types.StringValue("nvidia-h100-80gb"),
			GPUs: types.Int64Value(8), Replicas: types.Int64Value(1), MinReplicas: types.Int64Value(1), MaxReplicas: types.Int64Value(1),
			CPU: types.StringValue("8"), Memory: types.StringValue("64Gi")}
		return m
	}
	job, err := expandRayJob(gpuJob())
	if err != nil {
		t.Fatal(err)
	}
	g := &job.Spec.RayClusterSpec.WorkerGroupSpecs[0]
	two := int32(2)
	g.Replicas = &two
	g.Template.Spec.NodeSelector[gpuAcceleratorLabel] = "nvidia-l4"
	got := gpuJob()
	if !readSpec(got, job) {
		t.Fatal("readSpec saw no change")
	}
	if got.GPUWorkers.Replicas.ValueInt64() != 2 || got.GPUWorkers.Accelerator.ValueString() != "nvidia-l4" || got.GPUWorkers.GPUs.ValueInt64() != 8 {
		t.Errorf("gpu_workers after Read = %+v, want replicas 2 and accelerator nvidia-l4, gpus still 8", *got.GPUWorkers)
	}
}
