package provider

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
)

// The labels, annotations, taints and node labels a TPU RayJob on GKE with Kueue needs.
const (
	queueNameLabel        = "kueue.x-k8s.io/queue-name"
	elasticJobAnnotation  = "kueue.x-k8s.io/elastic-job"
	tpuResource           = "google.com/tpu"
	queuedTaint           = "cloud.google.com/gke-queued"
	tpuAcceleratorLabel   = "cloud.google.com/gke-tpu-accelerator"
	tpuTopologyLabel      = "cloud.google.com/gke-tpu-topology"
	filesVolume           = "train-script-volume"
	specHashAnnotation    = "dwsfallback/spec-hash"
	defaultFilesMountPath = "/app"
)

// numOfHosts is how many TPU VMs one slice of the topology spans: its chips over the chips of one node.
func numOfHosts(topology string, chipsPerNode int64) (int32, error) {
	dims, err := catalog.ParseTopology(topology)
	if err != nil {
		return 0, err
	}
	chips := int64(1)
	for _, d := range dims {
		chips *= int64(d)
	}
	if chipsPerNode < 1 || chips%chipsPerNode != 0 {
		return 0, fmt.Errorf("topology %s has %d chips, not a whole number of %d-chip nodes", topology, chips, chipsPerNode)
	}
	return int32(chips / chipsPerNode), nil
}

// runtimeEnvYAML renders runtime_env as the YAML RayJob's runtimeEnvYAML carries, laid out as the tutorial writes it.
// Each entry is a YAML scalar of its own, quoted where it must be: a pip line with " #" or ": " in it would otherwise
// mean something else to Ray.
func runtimeEnvYAML(pip []string) (string, error) {
	if len(pip) == 0 {
		return "", nil
	}
	var b strings.Builder
	b.WriteString("pip:\n")
	for _, p := range pip {
		v, err := yaml.Marshal(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "  - %s\n", strings.TrimSuffix(string(v), "\n"))
	}
	return b.String(), nil
}

// quantity parses a quantity that plan-time validation already accepted; what attr names it in the error otherwise.
func quantity(what, s string) (resource.Quantity, error) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return q, fmt.Errorf("%s: %q is not a Kubernetes quantity (examples: 2, 500m, 4Gi)", what, s)
	}
	return q, nil
}

// envVars is env as container variables, by name, so the spec is stable.
func envVars(env map[string]string) []corev1.EnvVar {
	if len(env) == 0 {
		return nil
	}
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]corev1.EnvVar, 0, len(names))
	for _, n := range names {
		out = append(out, corev1.EnvVar{Name: n, Value: env[n]})
	}
	return out
}

// expandRayJob builds the RayJob the tutorial's manifest (testdata/tutorial-rayjob.yaml) describes, from the resource's attributes.
func expandRayJob(m *rayJobModel) (*rayv1.RayJob, error) {
	w := m.TPUWorkers
	hosts, err := numOfHosts(w.Topology.ValueString(), w.ChipsPerNode.ValueInt64())
	if err != nil {
		return nil, err
	}
	labels := stringMap(m.Labels)
	if q := m.Queue.ValueString(); q != "" {
		labels[queueNameLabel] = q
	}
	annotations := stringMap(m.Annotations)
	if m.Elastic.ValueBool() {
		annotations[elasticJobAnnotation] = "true"
	}
	var mounts []corev1.VolumeMount
	var volumes []corev1.Volume
	if len(m.Files.Elements()) > 0 {
		mounts = []corev1.VolumeMount{{Name: filesVolume, MountPath: m.FilesMountPath.ValueString()}}
		volumes = []corev1.Volume{{Name: filesVolume, VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: m.FilesConfigMap.ValueString()}}}}}
	}
	env := envVars(stringMap(m.Env))
	image := m.Image.ValueString()
	var qerr error
	q := func(what string, v types.String) resource.Quantity {
		out, err := quantity(what, v.ValueString())
		if err != nil && qerr == nil {
			qerr = err
		}
		return out
	}
	headRes := corev1.ResourceList{corev1.ResourceCPU: q("head.cpu", m.Head.CPU), corev1.ResourceMemory: q("head.memory", m.Head.Memory)}
	workerRes := corev1.ResourceList{
		corev1.ResourceCPU: q("tpu_workers.cpu", w.CPU), corev1.ResourceMemory: q("tpu_workers.memory", w.Memory),
		tpuResource: *resource.NewQuantity(w.ChipsPerNode.ValueInt64(), resource.DecimalSI),
	}
	if qerr != nil {
		return nil, qerr
	}
	var pip []string
	if m.RuntimeEnv != nil {
		pip = stringList(m.RuntimeEnv.Pip)
	}
	runtimeEnv, err := runtimeEnvYAML(pip)
	if err != nil {
		return nil, err
	}
	autoscaling := m.EnableInTreeAutoscaling.ValueBool()
	replicas, minR, maxR := int32(w.Replicas.ValueInt64()), int32(w.MinReplicas.ValueInt64()), int32(w.MaxReplicas.ValueInt64())
	headSelector := stringMap(m.Head.NodeSelector)
	if len(headSelector) == 0 {
		headSelector = nil
	}
	job := &rayv1.RayJob{
		TypeMeta: metav1.TypeMeta{APIVersion: rayv1.GroupVersion.String(), Kind: "RayJob"},
		ObjectMeta: metav1.ObjectMeta{
			Name: m.Name.ValueString(), Namespace: m.Namespace.ValueString(),
			Labels: nilIfEmpty(labels), Annotations: nilIfEmpty(annotations),
		},
		Spec: rayv1.RayJobSpec{
			ShutdownAfterJobFinishes: m.ShutdownAfterJobFinishes.ValueBool(),
			Entrypoint:               m.Entrypoint.ValueString(),
			RuntimeEnvYAML:           runtimeEnv,
			RayClusterSpec: &rayv1.RayClusterSpec{
				EnableInTreeAutoscaling: &autoscaling,
				HeadGroupSpec: rayv1.HeadGroupSpec{
					RayStartParams: map[string]string{},
					Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
						NodeSelector: headSelector,
						Containers: []corev1.Container{{
							Name:  "ray-head",
							Image: image,
							Ports: []corev1.ContainerPort{
								{ContainerPort: 6379, Name: "gcs-server"},
								{ContainerPort: 8265, Name: "dashboard"},
								{ContainerPort: 10001, Name: "client"},
							},
							Env:          env,
							Resources:    corev1.ResourceRequirements{Limits: headRes, Requests: headRes.DeepCopy()},
							VolumeMounts: mounts,
						}},
						Volumes: volumes,
					}},
				},
				WorkerGroupSpecs: []rayv1.WorkerGroupSpec{{
					Replicas: &replicas, MinReplicas: &minR, MaxReplicas: &maxR,
					NumOfHosts:     hosts,
					GroupName:      w.GroupName.ValueString(),
					RayStartParams: map[string]string{},
					Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
						Tolerations: []corev1.Toleration{
							{Key: tpuResource, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
							{Key: queuedTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
						},
						Containers: []corev1.Container{{
							Name:         "ray-worker",
							Image:        image,
							Env:          env,
							Resources:    corev1.ResourceRequirements{Limits: workerRes, Requests: workerRes.DeepCopy()},
							VolumeMounts: mounts,
						}},
						Volumes: volumes,
						NodeSelector: map[string]string{
							tpuAcceleratorLabel: w.Accelerator.ValueString(),
							tpuTopologyLabel:    w.Topology.ValueString(),
						},
					}},
				}},
			},
		},
	}
	return job, nil
}

func nilIfEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// expandFilesConfigMap is the ConfigMap `kubectl create configmap NAME --from-file=...` makes of files.
func expandFilesConfigMap(m *rayJobModel) *corev1.ConfigMap {
	if len(m.Files.Elements()) == 0 {
		return nil
	}
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: m.FilesConfigMap.ValueString(), Namespace: m.Namespace.ValueString()},
		Data:       stringMap(m.Files),
	}
}
