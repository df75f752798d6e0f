package rayjob

import (
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// readSpec gives every attribute the resource writes that the live job no longer matches the job's value, so that a
// change made by hand (kubectl edit or patch) shows in the plan as the change Terraform would make: a new run, since
// all of them replace the job. It reports whether anything changed.
//
// What Kueue and KubeRay set themselves is not drift and is not compared: labels and annotations under
// kueue.x-k8s.io/, ray.io/ and autoscaling.x-k8s.io/ (the queue label and elastic annotation excepted), node selector
// keys and tolerations beyond the resource's own (Kueue adds its flavor's node labels and tolerations at admission,
// and takes them away when it suspends the job), suspend, and the fields the RayJob CRD defaults. A worker group that
// lost one of the resource's tolerations, or whose hosts per slice or container changed, no longer is the configured
// group: it reads as none, so the plan submits it again.
func readSpec(st *rayJobModel, job *rayv1.RayJob) bool {
	want, err := expandRayJob(st)
	if err != nil {
		return false // a state the resource could not have written: nothing to compare it with
	}
	changed := false
	take := func(differs bool, apply func()) {
		if differs {
			apply()
			changed = true
		}
	}
	q := job.Labels[wellknown.QueueNameLabel]
	take(want.Labels[wellknown.QueueNameLabel] != q, func() {
		st.Queue = types.StringNull()
		if q != "" {
			st.Queue = types.StringValue(q)
		}
	})
	liveLabels, liveAnnotations := ownLabels(job.Labels), ownAnnotations(job.Annotations)
	take(!maps.Equal(ownLabels(want.Labels), liveLabels), func() { st.Labels = tfvalue.MapValue(liveLabels) })
	take(!maps.Equal(ownAnnotations(want.Annotations), liveAnnotations), func() { st.Annotations = tfvalue.MapValue(liveAnnotations) })
	elastic := job.Annotations[wellknown.ElasticJobAnnotation] == "true"
	take(st.Elastic.ValueBool() != elastic, func() { st.Elastic = types.BoolValue(elastic) })

	ws, js := want.Spec, job.Spec
	take(ws.Entrypoint != js.Entrypoint, func() { st.Entrypoint = types.StringValue(js.Entrypoint) })
	take(ws.RuntimeEnvYAML != js.RuntimeEnvYAML && !slices.Equal(pipOf(ws.RuntimeEnvYAML), pipOf(js.RuntimeEnvYAML)), func() {
		st.RuntimeEnv = runtimeEnvOf(js.RuntimeEnvYAML)
	})
	take(ws.ShutdownAfterJobFinishes != js.ShutdownAfterJobFinishes, func() {
		st.ShutdownAfterJobFinishes = types.BoolValue(js.ShutdownAfterJobFinishes)
	})
	rc := js.RayClusterSpec
	if rc == nil {
		take(true, func() { st.Head, st.TPUWorkers, st.GPUWorkers = nil, nil, nil })
		return changed
	}
	autoscaling := rc.EnableInTreeAutoscaling != nil && *rc.EnableInTreeAutoscaling
	take(st.EnableInTreeAutoscaling.ValueBool() != autoscaling, func() { st.EnableInTreeAutoscaling = types.BoolValue(autoscaling) })

	wantHead := ws.RayClusterSpec.HeadGroupSpec.Template.Spec
	head := rc.HeadGroupSpec.Template.Spec
	hc, ok := podContainer(head, "ray-head")
	if !ok {
		take(true, func() { st.Head = nil })
	} else {
		wc := wantHead.Containers[0]
		take(hc.Image != wc.Image, func() { st.Image = types.StringValue(hc.Image) })
		take(!sameQuantity(wc.Resources, hc.Resources, corev1.ResourceCPU), func() { st.Head.CPU = driftedQuantity(wc.Resources, hc.Resources, corev1.ResourceCPU) })
		take(!sameQuantity(wc.Resources, hc.Resources, corev1.ResourceMemory), func() {
			st.Head.Memory = driftedQuantity(wc.Resources, hc.Resources, corev1.ResourceMemory)
		})
		sel := ownSelector(wantHead.NodeSelector, head.NodeSelector)
		take(!maps.Equal(tfvalue.NilIfEmpty(wantHead.NodeSelector), tfvalue.NilIfEmpty(sel)), func() { st.Head.NodeSelector = tfvalue.MapValue(sel) })
		take(!maps.Equal(envMap(wc.Env), envMap(hc.Env)), func() { st.Env = tfvalue.MapValue(envMap(hc.Env)) })
		if len(st.Files.Elements()) > 0 {
			mount, cm := filesMount(hc, head)
			take(mount != st.FilesMountPath.ValueString(), func() { st.FilesMountPath = types.StringValue(mount) })
			take(cm != st.FilesConfigMap.ValueString(), func() { st.FilesConfigMap = types.StringValue(cm) })
		}
	}
	readWorkers(st, want, job, take)
	return changed
}

// readWorkers is readSpec for the worker group.
func readWorkers(st *rayJobModel, want, job *rayv1.RayJob, take func(bool, func())) {
	wg := want.Spec.RayClusterSpec.WorkerGroupSpecs[0]
	var g *rayv1.WorkerGroupSpec
	for i := range job.Spec.RayClusterSpec.WorkerGroupSpecs {
		if lg := &job.Spec.RayClusterSpec.WorkerGroupSpecs[i]; lg.GroupName == wg.GroupName || g == nil {
			g = lg
		}
	}
	var c corev1.Container
	ok := g != nil
	if ok {
		c, ok = podContainer(g.Template.Spec, "ray-worker")
	}
	wc := wg.Template.Spec.Containers[0]
	if ok {
		for _, tol := range wg.Template.Spec.Tolerations {
			ok = ok && slices.ContainsFunc(g.Template.Spec.Tolerations, func(t corev1.Toleration) bool {
				return t.Key == tol.Key && t.Operator == tol.Operator && t.Effect == tol.Effect
			})
		}
		ok = ok && g.NumOfHosts == wg.NumOfHosts && hasQuantityOf(c.Resources, wc.Resources)
	}
	if !ok {
		take(true, func() { st.TPUWorkers, st.GPUWorkers = nil, nil })
		return
	}
	take(c.Image != wc.Image && c.Image != st.Image.ValueString(), func() { st.Image = types.StringValue(c.Image) })
	class := tolerationClass(g.Template.Spec.Tolerations)
	take(class.ValueString() != st.ComputeClass.ValueString(), func() { st.ComputeClass = class })
	i64 := func(p *int32) types.Int64 {
		if p == nil {
			return types.Int64Value(0)
		}
		return types.Int64Value(int64(*p))
	}
	same := func(a, b *int32) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	sel := g.Template.Spec.NodeSelector
	// The class's toleration, read above, wins where both changed.
	wantClass := wg.Template.Spec.NodeSelector[wellknown.ComputeClassLabel]
	take(sel[wellknown.ComputeClassLabel] != wantClass && st.ComputeClass.ValueString() == wantClass, func() {
		st.ComputeClass = types.StringNull()
		if c := sel[wellknown.ComputeClassLabel]; c != "" {
			st.ComputeClass = types.StringValue(c)
		}
	})
	// What both kinds of worker group share; each kind adds its accelerator below.
	var common struct {
		group, cpu, memory    *types.String
		replicas, minR, maxR  *types.Int64
		accelerator, selector string
		count                 *types.Int64
	}
	switch {
	case st.TPUWorkers != nil:
		w := st.TPUWorkers
		common.group, common.cpu, common.memory = &w.GroupName, &w.CPU, &w.Memory
		common.replicas, common.minR, common.maxR = &w.Replicas, &w.MinReplicas, &w.MaxReplicas
		common.accelerator, common.selector, common.count = wellknown.TPUResource, wellknown.TPUAcceleratorLabel, &w.ChipsPerNode
		take(sel[wellknown.TPUAcceleratorLabel] != w.Accelerator.ValueString(), func() { w.Accelerator = types.StringValue(sel[wellknown.TPUAcceleratorLabel]) })
		take(sel[wellknown.TPUTopologyLabel] != w.Topology.ValueString(), func() { w.Topology = types.StringValue(sel[wellknown.TPUTopologyLabel]) })
	case st.GPUWorkers != nil:
		w := st.GPUWorkers
		common.group, common.cpu, common.memory = &w.GroupName, &w.CPU, &w.Memory
		common.replicas, common.minR, common.maxR = &w.Replicas, &w.MinReplicas, &w.MaxReplicas
		common.accelerator, common.selector, common.count = wellknown.GPUResource, wellknown.GPUAcceleratorLabel, &w.GPUs
		take(sel[wellknown.GPUAcceleratorLabel] != w.Accelerator.ValueString(), func() { w.Accelerator = types.StringValue(sel[wellknown.GPUAcceleratorLabel]) })
	}
	if common.group != nil {
		n := c.Resources.Limits[corev1.ResourceName(common.accelerator)]
		take(g.GroupName != wg.GroupName, func() { *common.group = types.StringValue(g.GroupName) })
		take(n.Value() != common.count.ValueInt64() || !sameQuantity(wc.Resources, c.Resources, corev1.ResourceName(common.accelerator)), func() {
			*common.count = types.Int64Value(n.Value())
		})
		take(!same(g.Replicas, wg.Replicas), func() { *common.replicas = i64(g.Replicas) })
		take(!same(g.MinReplicas, wg.MinReplicas), func() { *common.minR = i64(g.MinReplicas) })
		take(!same(g.MaxReplicas, wg.MaxReplicas), func() { *common.maxR = i64(g.MaxReplicas) })
		take(!sameQuantity(wc.Resources, c.Resources, corev1.ResourceCPU), func() {
			*common.cpu = driftedQuantity(wc.Resources, c.Resources, corev1.ResourceCPU)
		})
		take(!sameQuantity(wc.Resources, c.Resources, corev1.ResourceMemory), func() {
			*common.memory = driftedQuantity(wc.Resources, c.Resources, corev1.ResourceMemory)
		})
	}
	take(!maps.Equal(envMap(wc.Env), envMap(c.Env)) && maps.Equal(envMap(wc.Env), tfvalue.StringMap(st.Env)), func() {
		st.Env = tfvalue.MapValue(envMap(c.Env))
	})
	if len(st.Files.Elements()) > 0 {
		// The head's mount and ConfigMap, read first, win where both changed.
		mount, cm := filesMount(c, g.Template.Spec)
		wantMount, wantCM := filesMount(wc, wg.Template.Spec)
		take(mount != wantMount && st.FilesMountPath.ValueString() == wantMount, func() { st.FilesMountPath = types.StringValue(mount) })
		take(cm != wantCM && st.FilesConfigMap.ValueString() == wantCM, func() { st.FilesConfigMap = types.StringValue(cm) })
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

// sameQuantity compares a resource's request and limit.
func sameQuantity(want, live corev1.ResourceRequirements, name corev1.ResourceName) bool {
	for _, pair := range [][2]corev1.ResourceList{{want.Requests, live.Requests}, {want.Limits, live.Limits}} {
		w, wok := pair[0][name]
		l, lok := pair[1][name]
		if wok != lok || (wok && w.Cmp(l) != 0) {
			return false
		}
	}
	return true
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

// driftedQuantity is the live request of a resource if it differs from want's, else its limit: the value that shows
// the change (the resource sets both alike).
func driftedQuantity(want, live corev1.ResourceRequirements, name corev1.ResourceName) types.String {
	for _, pair := range [][2]corev1.ResourceList{{want.Requests, live.Requests}, {want.Limits, live.Limits}} {
		w, wok := pair[0][name]
		l, lok := pair[1][name]
		switch {
		case !lok && wok:
			return types.StringValue("")
		case lok && (!wok || w.Cmp(l) != 0):
			return types.StringValue(l.String())
		}
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
