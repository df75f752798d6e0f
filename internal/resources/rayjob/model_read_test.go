package rayjob

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// jobWrapper builds models for tests, in the way of Kueue's test wrappers: makeJob().GPU().Obj().
type jobWrapper struct{ m *rayJobModel }

// makeJob starts from the tutorial's job 1.
func makeJob() *jobWrapper { return &jobWrapper{tutorialJob()} }

func (w *jobWrapper) Obj() *rayJobModel { return w.m }

// GPU swaps the TPU workers for a node of eight H100s.
func (w *jobWrapper) GPU() *jobWrapper {
	w.m.TPUWorkers, w.m.GPUWorkers = nil, &gpuWorkersModel{GroupName: types.StringValue("gpu-group"),
		Accelerator: types.StringValue("nvidia-h100-80gb"), GPUs: types.Int64Value(8), Replicas: types.Int64Value(1),
		MinReplicas: types.Int64Value(1), MaxReplicas: types.Int64Value(1), CPU: types.StringValue("8"), Memory: types.StringValue("64Gi")}
	return w
}

func (w *jobWrapper) Class(name string) *jobWrapper {
	w.m.ComputeClass = types.StringValue(name)
	return w
}

func (w *jobWrapper) NoFiles() *jobWrapper {
	w.m.Files, w.m.FilesConfigMap = types.MapNull(types.StringType), types.StringNull()
	return w
}

func (w *jobWrapper) NoRuntimeEnv() *jobWrapper { w.m.RuntimeEnv = nil; return w }

func (w *jobWrapper) Env(k, v string) *jobWrapper {
	w.m.Env = tfvalue.MapValue(map[string]string{k: v})
	return w
}

func (w *jobWrapper) Label(k, v string) *jobWrapper {
	w.m.Labels = tfvalue.MapValue(map[string]string{k: v})
	return w
}

func (w *jobWrapper) Annotation(k, v string) *jobWrapper {
	w.m.Annotations = tfvalue.MapValue(map[string]string{k: v})
	return w
}

var jobShapes = map[string]func() *rayJobModel{
	"tutorial":          func() *rayJobModel { return makeJob().Obj() },
	"gpu":               func() *rayJobModel { return makeJob().GPU().Obj() },
	"class":             func() *rayJobModel { return makeJob().Class("tpu-fallback").Obj() },
	"no files, no pip":  func() *rayJobModel { return makeJob().NoFiles().NoRuntimeEnv().Obj() },
	"env, labels, note": func() *rayJobModel { return makeJob().Env("A", "b").Label("team", "ml").Annotation("note", "x").Obj() },
}

// Import reads back what apply would write again: a job read with readJob expands to the job it was read from.
func TestReadJobInvertsExpand(t *testing.T) {
	t.Parallel()
	for name, shape := range jobShapes {
		t.Run(name, func(t *testing.T) {
			m := shape()
			job, err := expandRayJob(m)
			if err != nil {
				t.Fatal(err)
			}
			back := readJob(job)
			back.Files = m.Files // from the ConfigMap, which import reads apart
			again, err := expandRayJob(back)
			if err != nil {
				t.Fatalf("the read job does not expand: %v", err)
			}
			if diff := cmp.Diff(job, again, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
				t.Errorf("job expanded from its own read (-made +read):\n%s", diff)
			}
		})
	}
}

// Every attribute the job is made of reads back when the job alone changes it: for each attribute of each shape in
// turn (found by walking the model, not listed), the job is made with another value, and Read must take exactly
// that value, or read the block that holds it as none where the group no longer is the configured one (another
// topology makes other hosts per slice).
func TestReadSpecSeesEveryAttribute(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for name, shape := range jobShapes {
		if job, _ := expandRayJob(shape()); readSpec(shape(), job) {
			t.Errorf("%s: the job the state makes reads as changed", name)
		}
		for _, path := range attributePaths(reflect.TypeFor[rayJobModel](), nil, "") {
			changed, ok := changeAttribute(shape, path.index)
			// files live in the ConfigMap (readFiles); the job holds only whether there are any, and a volume
			// added to a job without files shows in the drift attribute.
			if !ok || path.name == "files" {
				continue // not part of the job (wait_for, ids), or no other value makes another job
			}
			seen[path.name] = true
			job, _ := expandRayJob(changed)
			got := shape()
			if !readSpec(got, job) {
				t.Errorf("%s: a job with another %s reads as unchanged", name, path.name)
				continue
			}
			opts := cmp.Options{cmpopts.IgnoreUnexported(rayJobModel{}), cmpopts.IgnoreFields(rayJobModel{}, "Timeouts"),
				cmp.Comparer(func(a, b attr.Value) bool { return a.Equal(b) })}
			diff := cmp.Diff(changed, got, opts)
			if diff == "" {
				continue
			}
			// Another topology or chips per node makes other hosts per slice: no longer the configured group.
			if block := strings.SplitN(path.name, ".", 2)[0]; path.name == "tpu_workers.topology" || path.name == "tpu_workers.chips_per_node" {
				none := shape()
				reflect.ValueOf(none).Elem().FieldByName(path.field).Set(reflect.Zero(reflect.ValueOf(none).Elem().FieldByName(path.field).Type()))
				if cmp.Diff(none, got, opts) == "" {
					continue // the block reads as none
				}
				t.Errorf("%s: another %s reads neither as itself nor as %s gone (-changed +read):\n%s", name, path.name, block, diff)
				continue
			}
			t.Errorf("%s: another %s reads otherwise (-changed +read):\n%s", name, path.name, diff)
		}
	}
	for _, want := range []string{"queue", "image", "head.cpu", "tpu_workers.topology", "gpu_workers.gpus", "runtime_env.pip", "compute_class", "files_mount_path"} {
		if !seen[want] {
			t.Errorf("%s was never changed: the walk missed it", want)
		}
	}
	if len(seen) < 35 { // every attribute of the job: a walk that misses some changes fewer
		t.Errorf("only %d attributes changed: %v", len(seen), seen)
	}
}

type attributePath struct {
	name, field string // field: the top-level Go field holding it
	index       [][]int
}

// attributePaths are the model's scalar attributes, through its nested models.
func attributePaths(t reflect.Type, prefix [][]int, name string) []attributePath {
	var out []attributePath
	for _, f := range reflect.VisibleFields(t) {
		tag := f.Tag.Get("tfsdk")
		if tag == "" || tag == "-" {
			continue
		}
		full, index := tag, append(append([][]int{}, prefix...), f.Index)
		if name != "" {
			full = name + "." + tag
		}
		if f.Type.Kind() == reflect.Pointer {
			for _, p := range attributePaths(f.Type.Elem(), index, full) {
				p.field = f.Name
				out = append(out, p)
			}
			continue
		}
		out = append(out, attributePath{name: full, field: f.Name, index: index})
	}
	return out
}

// changeAttribute is shape with the attribute at index set to the first other value that still expands and makes
// another job; ok is false when there is none, or the shape lacks the attribute's block.
func changeAttribute(shape func() *rayJobModel, index [][]int) (*rayJobModel, bool) {
	original, err := expandRayJob(shape())
	if err != nil {
		return nil, false
	}
	m := shape()
	v := reflect.ValueOf(m).Elem()
	for _, i := range index[:len(index)-1] {
		v = v.FieldByIndex(i)
		if v.IsNil() {
			return nil, false
		}
		v = v.Elem()
	}
	field := v.FieldByIndex(index[len(index)-1])
	var candidates []attr.Value
	switch cur := field.Interface().(type) {
	case types.String:
		candidates = []attr.Value{types.StringValue("3"), types.StringValue("2x2"), types.StringValue("other")}
	case types.Int64:
		candidates = []attr.Value{types.Int64Value(2), types.Int64Value(8)}
	case types.Bool:
		candidates = []attr.Value{types.BoolValue(!cur.ValueBool())}
	case types.Map:
		// Other values for the keys it has: keys it lacks may be Kueue's (a flavor's node labels), which Read leaves
		// to the drift attribute.
		other := map[string]string{}
		for k := range tfvalue.StringMap(cur) {
			other[k] = "other"
		}
		if len(other) == 0 {
			other["k"] = "v"
		}
		candidates = []attr.Value{tfvalue.MapValue(other)}
	case types.List:
		candidates = []attr.Value{types.ListValueMust(types.StringType, []attr.Value{types.StringValue("x==1")})}
	}
	for _, c := range candidates {
		if reflect.TypeOf(c) != field.Type() {
			continue
		}
		field.Set(reflect.ValueOf(c))
		if job, err := expandRayJob(m); err == nil && !equality.Semantic.DeepEqual(original, job) {
			return m, true
		}
	}
	return nil, false
}

// Import reads a job made elsewhere (kubectl) as the configuration that would make it, and lists in drift what no
// attribute can show but its first apply would change.
func TestReadJobImports(t *testing.T) {
	t.Parallel()
	made := func(patch func(*rayv1.RayJob)) *rayv1.RayJob {
		job, err := expandRayJob(makeJob().Obj())
		if err != nil {
			t.Fatal(err)
		}
		patch(job)
		return job
	}
	head := func(j *rayv1.RayJob) *corev1.Container {
		return &j.Spec.RayClusterSpec.HeadGroupSpec.Template.Spec.Containers[0]
	}
	cases := []struct {
		name  string
		patch func(*rayv1.RayJob)
		want  func(*rayJobModel)
		drift bool
	}{
		{name: "as made", patch: func(*rayv1.RayJob) {}},
		{name: "the runtime env spelled otherwise", patch: func(j *rayv1.RayJob) {
			j.Spec.RuntimeEnvYAML = "pip: [\"jax[tpu]==0.8.2\", pandas==2.3.3]"
		}},
		{name: "cpu as a limit only", patch: func(j *rayv1.RayJob) { delete(head(j).Resources.Requests, corev1.ResourceCPU) }},
		{name: "a head container of another name", patch: func(j *rayv1.RayJob) { head(j).Name = "head" }},
		{name: "a runtime env without pip", patch: func(j *rayv1.RayJob) { j.Spec.RuntimeEnvYAML = "env_vars:\n  A: b\n" },
			want: func(m *rayJobModel) { m.RuntimeEnv = &runtimeEnvModel{Pip: types.ListNull(types.StringType)} }, drift: true},
		{name: "an empty pip list", patch: func(j *rayv1.RayJob) { j.Spec.RuntimeEnvYAML = "pip: []\n" },
			want: func(m *rayJobModel) { m.RuntimeEnv = &runtimeEnvModel{Pip: types.ListValueMust(types.StringType, nil)} }},
		{name: "pip and more", patch: func(j *rayv1.RayJob) { j.Spec.RuntimeEnvYAML += "working_dir: /src\n" }, drift: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := made(tc.patch)
			want := makeJob().Obj()
			if tc.want != nil {
				tc.want(want)
			}
			got := &rayJobModel{Files: want.Files, FilesMountPath: types.StringValue(defaultFilesMountPath)}
			tfvalue.TakeChanged(got, &rayJobModel{}, readJob(job))
			opts := cmp.Options{cmpopts.IgnoreUnexported(rayJobModel{}), cmpopts.IgnoreFields(rayJobModel{}, "Timeouts", "Drift", "NumOfHosts"),
				cmp.Comparer(func(a, b attr.Value) bool { return a.Equal(b) })}
			if diff := cmp.Diff(want, got, opts); diff != "" {
				t.Errorf("imported (-want +got):\n%s", diff)
			}
			if d := importDrift(job); (len(d) > 0) != tc.drift {
				t.Errorf("drift = %v, want some: %v", d, tc.drift)
			}
		})
	}
}
