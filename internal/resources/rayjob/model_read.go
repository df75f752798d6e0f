package rayjob

import (
	"maps"
	"reflect"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// readSpec gives every attribute the resource writes that the live job no longer matches the job's value, so that a
// change made by hand (kubectl edit or patch) shows in the plan as the change Terraform would make: a new run, since
// all of them replace the job. It reports whether anything changed. Both sides go through readJob: the job the state
// makes, and the live job read against it, so that only what differs is taken and the state keeps its own spelling.
func readSpec(st *rayJobModel, job *rayv1.RayJob) bool {
	want, err := expandRayJob(st)
	if err != nil {
		return false // a state the resource could not have written: nothing to compare it with
	}
	base := readJob(want)
	live := *base
	readOver(&live, job, want)
	return tfvalue.TakeChanged(st, base, &live)
}

// readJob is a RayJob read back into the model: the one inverse of expandRayJob. Import takes it whole; Read takes
// what differs from the state's own job (readSpec).
func readJob(job *rayv1.RayJob) *rayJobModel {
	m := &rayJobModel{}
	readOver(m, job, nil)
	return m
}

// readOver sets in m each attribute that job holds. ref, a job expandRayJob made, given when m is readJob(ref),
// settles what the job alone cannot tell:
//   - a value the job holds more than once (the image, env and files' mount in head and workers; a quantity as
//     request and limit) reads as the first copy that differs from ref's, so that a change to any copy shows;
//   - only the node selector keys and the files' volume that ref writes are read: Kueue adds its flavor's node labels
//     and tolerations at admission, and takes them away when it suspends the job;
//   - a head without its container, or a worker group without its container, one of ref's tolerations, ref's hosts
//     per slice or accelerator, is not the configured one: it reads as none, so the plan submits it again, and what
//     only it held keeps ref's value.
//
// What Kueue and KubeRay set themselves is never read: labels and annotations under kueue.x-k8s.io/, ray.io/ and
// autoscaling.x-k8s.io/ (the queue label and elastic annotation excepted), suspend, and the fields the RayJob CRD
// defaults. Every nested model is made anew, never changed in place, so m may share them with ref's read.
func readOver(m *rayJobModel, job, ref *rayv1.RayJob) {
	m.Namespace, m.Name = types.StringValue(job.Namespace), types.StringValue(job.Name)
	m.Queue = types.StringNull()
	if q := job.Labels[wellknown.QueueNameLabel]; q != "" {
		m.Queue = types.StringValue(q)
	}
	m.Elastic = types.BoolValue(job.Annotations[wellknown.ElasticJobAnnotation] == "true")
	m.Labels, m.Annotations = tfvalue.MapValue(ownLabels(job.Labels)), tfvalue.MapValue(ownAnnotations(job.Annotations))
	m.Entrypoint = types.StringValue(job.Spec.Entrypoint)
	m.ShutdownAfterJobFinishes = types.BoolValue(job.Spec.ShutdownAfterJobFinishes)
	if ref == nil || job.Spec.RuntimeEnvYAML != ref.Spec.RuntimeEnvYAML {
		m.RuntimeEnv = runtimeEnvOf(job.Spec.RuntimeEnvYAML)
	}
	rc := job.Spec.RayClusterSpec
	if rc == nil {
		m.Head, m.TPUWorkers, m.GPUWorkers = nil, nil, nil
		return
	}
	m.EnableInTreeAutoscaling = types.BoolValue(rc.EnableInTreeAutoscaling != nil && *rc.EnableInTreeAutoscaling)
	var refHead *corev1.PodSpec
	var refGroup *rayv1.WorkerGroupSpec
	if ref != nil && ref.Spec.RayClusterSpec != nil {
		refHead = &ref.Spec.RayClusterSpec.HeadGroupSpec.Template.Spec
		if len(ref.Spec.RayClusterSpec.WorkerGroupSpecs) > 0 {
			refGroup = &ref.Spec.RayClusterSpec.WorkerGroupSpecs[0]
		}
	}
	var copies []podCopy // of what head and workers both hold, head first
	hs := rc.HeadGroupSpec.Template.Spec
	if hc, ok := headContainer(hs, refHead == nil); ok {
		var refRes *corev1.ResourceRequirements
		sel := hs.NodeSelector
		if refHead != nil {
			refRes, sel = &refHead.Containers[0].Resources, ownSelector(refHead.NodeSelector, hs.NodeSelector)
		}
		m.Head = &headModel{
			CPU: quantityString(hc.Resources, refRes, corev1.ResourceCPU), Memory: quantityString(hc.Resources, refRes, corev1.ResourceMemory),
			NodeSelector: tfvalue.MapValue(sel),
		}
		copies = append(copies, copyOf(hc, hs))
	} else {
		m.Head = nil
	}
	if g, c, ok := workerGroupOf(rc, refGroup); ok {
		readWorkers(m, g, c, refGroup)
		copies = append(copies, copyOf(c, g.Template.Spec))
	} else {
		m.TPUWorkers, m.GPUWorkers = nil, nil
	}
	var refCopy *podCopy
	if refHead != nil {
		rc := copyOf(refHead.Containers[0], *refHead)
		refCopy = &rc
	}
	readCopies(m, copies, refCopy)
}

// importDrift lists in `drift` what an imported job's runtime env holds beyond pip packages (env_vars, working_dir):
// no attribute can show it, and the first apply would drop it. (Other parts of a job made elsewhere that the
// resource does not write, an extra container say, are not listed: they are another writer's, as in a refresh.)
func importDrift(job *rayv1.RayJob) []string {
	written, err := runtimeEnvYAML(pipOf(job.Spec.RuntimeEnvYAML))
	if err == nil && reflect.DeepEqual(runtimeEnvMeaning(job.Spec.RuntimeEnvYAML), runtimeEnvMeaning(written)) {
		return nil
	}
	return []string{rayJobKey(job.Namespace, job.Name) + " .spec.runtimeEnvYAML"}
}

// runtimeEnvMeaning is a runtime env as Ray takes it: nil for none, an empty or null pip list included; YAML that
// does not parse is itself.
func runtimeEnvMeaning(y string) any {
	var env map[string]any
	if err := yaml.Unmarshal([]byte(y), &env); err != nil {
		return y
	}
	if pip, ok := env["pip"].([]any); env["pip"] == nil || ok && len(pip) == 0 {
		delete(env, "pip")
	}
	if len(env) == 0 {
		return nil
	}
	return env
}

// readFiles is the files attribute read from its ConfigMap (expandFilesConfigMap's inverse): null when there is none.
func readFiles(cm *corev1.ConfigMap) types.Map {
	if cm == nil {
		return types.MapNull(types.StringType)
	}
	return tfvalue.MapValue(cm.Data)
}

// podCopy is what the head's and the workers' pods both hold of the job's attributes.
type podCopy struct {
	image, mount, configMap string
	env                     map[string]string
}

func copyOf(c corev1.Container, spec corev1.PodSpec) podCopy {
	mount, cm := filesMount(c, spec)
	return podCopy{image: c.Image, env: envMap(c.Env), mount: mount, configMap: cm}
}

// readCopies reads each attribute the pods share from the first copy that differs from ref's (the first copy, on import).
func readCopies(m *rayJobModel, copies []podCopy, ref *podCopy) {
	pick := func(differs func(c podCopy) bool, set func(c podCopy)) {
		for _, c := range copies {
			if ref == nil || differs(c) {
				set(c)
				return
			}
		}
	}
	pick(func(c podCopy) bool { return c.image != ref.image }, func(c podCopy) { m.Image = types.StringValue(c.image) })
	pick(func(c podCopy) bool { return !maps.Equal(c.env, ref.env) }, func(c podCopy) { m.Env = tfvalue.MapValue(c.env) })
	if ref != nil && ref.mount == "" {
		return // the files' volume is the resource's only with files
	}
	pick(func(c podCopy) bool { return c.mount != ref.mount }, func(c podCopy) {
		if ref != nil || c.mount != "" {
			m.FilesMountPath = types.StringValue(c.mount)
		}
	})
	pick(func(c podCopy) bool { return c.configMap != ref.configMap }, func(c podCopy) {
		if ref != nil || c.configMap != "" {
			m.FilesConfigMap = types.StringValue(c.configMap)
		}
	})
}

// headContainer is the head's Ray container; on import, a job made elsewhere may name it otherwise: its first.
func headContainer(spec corev1.PodSpec, importing bool) (corev1.Container, bool) {
	if c, ok := podContainer(spec, "ray-head"); ok || !importing || len(spec.Containers) == 0 {
		return c, ok
	}
	return spec.Containers[0], true
}

// workerGroupOf is the job's worker group and its container. With ref, it is the group of ref's name (else the
// first) if it still is ref's group; on import, the first group whose first container asks for TPUs or GPUs.
func workerGroupOf(rc *rayv1.RayClusterSpec, ref *rayv1.WorkerGroupSpec) (*rayv1.WorkerGroupSpec, corev1.Container, bool) {
	if ref == nil {
		for i := range rc.WorkerGroupSpecs {
			g := &rc.WorkerGroupSpecs[i]
			if len(g.Template.Spec.Containers) > 0 && acceleratorOf(g.Template.Spec.Containers[0].Resources) != "" {
				return g, g.Template.Spec.Containers[0], true
			}
		}
		return nil, corev1.Container{}, false
	}
	var g *rayv1.WorkerGroupSpec
	for i := range rc.WorkerGroupSpecs {
		if lg := &rc.WorkerGroupSpecs[i]; lg.GroupName == ref.GroupName || g == nil {
			g = lg
		}
	}
	if g == nil {
		return nil, corev1.Container{}, false
	}
	c, ok := podContainer(g.Template.Spec, "ray-worker")
	for _, tol := range ref.Template.Spec.Tolerations {
		ok = ok && slices.ContainsFunc(g.Template.Spec.Tolerations, func(t corev1.Toleration) bool {
			return t.Key == tol.Key && t.Operator == tol.Operator && t.Effect == tol.Effect
		})
	}
	ok = ok && g.NumOfHosts == ref.NumOfHosts && hasQuantityOf(c.Resources, ref.Template.Spec.Containers[0].Resources)
	return g, c, ok
}

// acceleratorOf is the accelerator a worker container asks for: GPUs or TPUs, "" for neither.
func acceleratorOf(r corev1.ResourceRequirements) corev1.ResourceName {
	for _, name := range []corev1.ResourceName{wellknown.GPUResource, wellknown.TPUResource} {
		if _, ok := r.Limits[name]; ok {
			return name
		}
	}
	return ""
}

// readWorkers reads the worker group (ref's, if given) into tpu_workers or gpu_workers, its hosts and its class.
func readWorkers(m *rayJobModel, g *rayv1.WorkerGroupSpec, c corev1.Container, ref *rayv1.WorkerGroupSpec) {
	accelerator := acceleratorOf(c.Resources)
	var refRes *corev1.ResourceRequirements
	if ref != nil {
		refRes = &ref.Template.Spec.Containers[0].Resources
		accelerator = acceleratorOf(*refRes)
	}
	i64 := func(p *int32) types.Int64 {
		if p == nil {
			return types.Int64Value(0)
		}
		return types.Int64Value(int64(*p))
	}
	count, _ := quantityOf(c.Resources, refRes, accelerator)
	sel := g.Template.Spec.NodeSelector
	str := types.StringValue
	cpu, memory := quantityString(c.Resources, refRes, corev1.ResourceCPU), quantityString(c.Resources, refRes, corev1.ResourceMemory)
	m.TPUWorkers, m.GPUWorkers = nil, nil
	if accelerator == wellknown.GPUResource {
		m.GPUWorkers = &gpuWorkersModel{GroupName: str(g.GroupName), Accelerator: str(sel[wellknown.GPUAcceleratorLabel]),
			GPUs: types.Int64Value(count.Value()), CPU: cpu, Memory: memory,
			Replicas: i64(g.Replicas), MinReplicas: i64(g.MinReplicas), MaxReplicas: i64(g.MaxReplicas)}
	} else {
		m.TPUWorkers = &tpuWorkersModel{GroupName: str(g.GroupName), Accelerator: str(sel[wellknown.TPUAcceleratorLabel]),
			Topology: str(sel[wellknown.TPUTopologyLabel]), ChipsPerNode: types.Int64Value(count.Value()), CPU: cpu, Memory: memory,
			Replicas: i64(g.Replicas), MinReplicas: i64(g.MinReplicas), MaxReplicas: i64(g.MaxReplicas)}
	}
	m.NumOfHosts = types.Int64Value(int64(g.NumOfHosts))
	// The class is the one whose taint the group tolerates (Kueue may add selector keys); the selector tells only
	// when the toleration is ref's, so that the toleration wins where both changed.
	m.ComputeClass = tolerationClass(g.Template.Spec.Tolerations)
	if ref != nil && m.ComputeClass.Equal(tolerationClass(ref.Template.Spec.Tolerations)) {
		if s := sel[wellknown.ComputeClassLabel]; s != ref.Template.Spec.NodeSelector[wellknown.ComputeClassLabel] {
			m.ComputeClass = types.StringNull()
			if s != "" {
				m.ComputeClass = types.StringValue(s)
			}
		}
	}
}

// ownLabels are a job's labels that the resource's labels attribute holds: not the queue label, not Kueue's or KubeRay's.
func ownLabels(in map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range in {
		if !wellknown.InDomain(k, wellknown.KueueDomain) && !wellknown.InDomain(k, wellknown.RayDomain) {
			out[k] = v
		}
	}
	return out
}

// ownAnnotations are a job's annotations that the resource's annotations attribute holds.
func ownAnnotations(in map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range in {
		switch {
		case k == specHashAnnotation, k == corev1.LastAppliedConfigAnnotation, wellknown.InDomain(k, wellknown.KueueDomain),
			wellknown.InDomain(k, "autoscaling.x-k8s.io"), wellknown.InDomain(k, wellknown.RayDomain):
		default:
			out[k] = v
		}
	}
	return out
}

// ownSelector is live restricted to the keys the resource sets (want's): Kueue adds its flavor's node labels.
func ownSelector(want, live map[string]string) map[string]string {
	out := map[string]string{}
	for k := range want {
		if v, ok := live[k]; ok {
			out[k] = v
		}
	}
	return out
}

func podContainer(spec corev1.PodSpec, name string) (corev1.Container, bool) {
	for _, c := range spec.Containers {
		if c.Name == name {
			return c, true
		}
	}
	return corev1.Container{}, false
}

// hasQuantityOf reports whether live asks for every resource want does (a resource gone means another container).
func hasQuantityOf(live, want corev1.ResourceRequirements) bool {
	for name := range want.Limits {
		if _, ok := live.Limits[name]; !ok {
			return false
		}
	}
	return true
}

// quantityOf is how much of a resource a container asks for, which the job sets alike as request and limit. With ref,
// it is the first copy that differs from ref's (absent for one removed), else ref's; on import, the request, or the
// limit where there is none.
func quantityOf(live corev1.ResourceRequirements, ref *corev1.ResourceRequirements, name corev1.ResourceName) (resource.Quantity, bool) {
	if ref == nil {
		ref = &live
	} else {
		for _, pair := range [][2]corev1.ResourceList{{ref.Requests, live.Requests}, {ref.Limits, live.Limits}} {
			w, wok := pair[0][name]
			l, lok := pair[1][name]
			switch {
			case !lok && wok:
				return resource.Quantity{}, false
			case lok && (!wok || w.Cmp(l) != 0):
				return l, true
			}
		}
	}
	if q, ok := ref.Requests[name]; ok {
		return q, true
	}
	q, ok := ref.Limits[name]
	return q, ok
}

// quantityString is quantityOf as the model writes it: "" for none.
func quantityString(live corev1.ResourceRequirements, ref *corev1.ResourceRequirements, name corev1.ResourceName) types.String {
	if q, ok := quantityOf(live, ref, name); ok {
		return types.StringValue(q.String())
	}
	return types.StringValue("")
}

func envMap(env []corev1.EnvVar) map[string]string {
	out := map[string]string{}
	for _, e := range env {
		out[e.Name] = e.Value
	}
	return out
}

// filesMount is where a container mounts the files' volume, and the ConfigMap that volume names.
func filesMount(c corev1.Container, spec corev1.PodSpec) (mount, configMap string) {
	for _, vm := range c.VolumeMounts {
		if vm.Name == filesVolume {
			mount = vm.MountPath
		}
	}
	for _, v := range spec.Volumes {
		if v.Name == filesVolume && v.ConfigMap != nil {
			configMap = v.ConfigMap.Name
		}
	}
	return mount, configMap
}

func pipOf(runtimeEnv string) []string {
	var env struct {
		Pip []string `json:"pip"`
	}
	_ = yaml.Unmarshal([]byte(runtimeEnv), &env)
	return env.Pip
}

func runtimeEnvOf(runtimeEnv string) *runtimeEnvModel {
	if runtimeEnv == "" {
		return nil
	}
	var pip []string
	if p := pipOf(runtimeEnv); p != nil {
		pip = p
	}
	m := &runtimeEnvModel{Pip: types.ListNull(types.StringType)}
	if pip != nil {
		vals := make([]attr.Value, len(pip))
		for i, p := range pip {
			vals[i] = types.StringValue(p)
		}
		m.Pip = types.ListValueMust(types.StringType, vals)
	}
	return m
}
