package rayjob

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

type rayJobModel struct {
	ID                       types.String     `tfsdk:"id"`
	Cluster                  types.String     `tfsdk:"cluster"`
	Project                  types.String     `tfsdk:"project"`
	Location                 types.String     `tfsdk:"location"`
	Namespace                types.String     `tfsdk:"namespace"`
	Name                     types.String     `tfsdk:"name"`
	Queue                    types.String     `tfsdk:"queue"`
	Elastic                  types.Bool       `tfsdk:"elastic"`
	Entrypoint               types.String     `tfsdk:"entrypoint"`
	Files                    types.Map        `tfsdk:"files"`
	FilesConfigMap           types.String     `tfsdk:"files_config_map"`
	FilesMountPath           types.String     `tfsdk:"files_mount_path"`
	RuntimeEnv               *runtimeEnvModel `tfsdk:"runtime_env"`
	Image                    types.String     `tfsdk:"image"`
	Head                     *headModel       `tfsdk:"head"`
	TPUWorkers               *tpuWorkersModel `tfsdk:"tpu_workers"`
	GPUWorkers               *gpuWorkersModel `tfsdk:"gpu_workers"`
	NumOfHosts               types.Int64      `tfsdk:"num_of_hosts"`
	ComputeClass             types.String     `tfsdk:"compute_class"`
	Env                      types.Map        `tfsdk:"env"`
	Labels                   types.Map        `tfsdk:"labels"`
	Annotations              types.Map        `tfsdk:"annotations"`
	ShutdownAfterJobFinishes types.Bool       `tfsdk:"shutdown_after_job_finishes"`
	EnableInTreeAutoscaling  types.Bool       `tfsdk:"enable_in_tree_autoscaling"`
	WaitFor                  types.String     `tfsdk:"wait_for"`
	ResubmitWhenDeleted      types.Bool       `tfsdk:"resubmit_when_deleted"`
	Drift                    types.List       `tfsdk:"drift"`

	rayJobStatusModel

	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

// rayJobStatusModel is where a job stands, as Kueue and KubeRay report it: shared by the resource and the data source.
type rayJobStatusModel struct {
	WorkloadName        types.String `tfsdk:"workload_name"`
	Admitted            types.Bool   `tfsdk:"admitted"`
	AdmittedFlavor      types.String `tfsdk:"admitted_flavor"`
	DispatchedTo        types.String `tfsdk:"dispatched_to"`
	AdmissionChecks     types.Map    `tfsdk:"admission_checks"`
	JobStatus           types.String `tfsdk:"job_status"`
	JobDeploymentStatus types.String `tfsdk:"job_deployment_status"`
	RayClusterName      types.String `tfsdk:"ray_cluster_name"`
	DashboardURL        types.String `tfsdk:"dashboard_url"`
	StartTime           types.String `tfsdk:"start_time"`
	EndTime             types.String `tfsdk:"end_time"`
	Message             types.String `tfsdk:"message"`
	NodesByPool         types.Map    `tfsdk:"nodes_by_pool"`
}

// rayJobStatusSchema builds the status attributes for either schema package (the resource's or the data source's),
// from the one description below, with the package's constructors of a computed string, bool and map.
func rayJobStatusSchema[A any](str, boolean func(desc string) A, mapOf func(desc string, elem attr.Type) A) map[string]A {
	out := map[string]A{}
	for _, a := range rayJobStatusAttributes {
		switch a.kind {
		case "bool":
			out[a.name] = boolean(a.desc)
		case "map":
			out[a.name] = mapOf(a.desc, types.StringType)
		case "count map":
			out[a.name] = mapOf(a.desc, types.Int64Type)
		default:
			out[a.name] = str(a.desc)
		}
	}
	return out
}

// rayJobStatusAttributes describe the status attributes, for the resource's and the data source's schema.
var rayJobStatusAttributes = []struct{ name, kind, desc string }{
	{"workload_name", "string", "Name of Kueue's Workload for the job."},
	{"admitted", "bool", "Whether Kueue admitted the job."},
	{"admitted_flavor", "string", "The ResourceFlavor of the TPU workers, e.g. `on-demand` (plan A) or `dws` (plan B)."},
	{"dispatched_to", "string", "The MultiKueue worker that runs the job (its `MultiKueueCluster` name), from the manager's Workload " +
		"`status.clusterName`: with Kueue's all-at-once dispatcher, the first worker that admitted it. Empty for a job not sent through " +
		"MultiKueue, or not dispatched yet. The job's pods, and `nodes_by_pool`, are on that worker. Kueue v0.17 keeps this name " +
		"when a worker that was lost answers again and its older copy of the job wins (see the multi-region guide)."},
	{"admission_checks", "map", "Admission check name to state (`Pending`, `Ready`, `Retry`, `Rejected`)."},
	{"job_status", "string", "Ray's job status (`PENDING`, `RUNNING`, `SUCCEEDED`, `FAILED`, `STOPPED`)."},
	{"job_deployment_status", "string", "KubeRay's deployment status (`Suspended`, `Initializing`, `Running`, `Complete`, `Failed`, ...)."},
	{"ray_cluster_name", "string", "The RayCluster KubeRay made for the job."},
	{"dashboard_url", "string", "Ray dashboard address."},
	{"start_time", "string", "When the job started (RFC 3339)."},
	{"end_time", "string", "When the job ended (RFC 3339)."},
	{"message", "string", "Kueue's or KubeRay's latest message about the job."},
	{"nodes_by_pool", "count map", "Node pool name to how many nodes run the job's Ray pods (head and workers) now, e.g. " +
		"`{\"default-pool\" = 1, \"on-demand-pool\" = 4}`: where the job actually landed. A pod counts under the pool its " +
		"`cloud.google.com/gke-nodepool` node selector names (Kueue's flavor or the head's), which the scheduler enforced; " +
		"empty while no pod has a node."},
}

// equal reports whether two statuses say the same, attribute by attribute.
func (m rayJobStatusModel) equal(o rayJobStatusModel) bool {
	return m.WorkloadName.Equal(o.WorkloadName) && m.Admitted.Equal(o.Admitted) && m.AdmittedFlavor.Equal(o.AdmittedFlavor) &&
		m.DispatchedTo.Equal(o.DispatchedTo) &&
		m.AdmissionChecks.Equal(o.AdmissionChecks) && m.JobStatus.Equal(o.JobStatus) && m.JobDeploymentStatus.Equal(o.JobDeploymentStatus) &&
		m.RayClusterName.Equal(o.RayClusterName) && m.DashboardURL.Equal(o.DashboardURL) && m.StartTime.Equal(o.StartTime) &&
		m.EndTime.Equal(o.EndTime) && m.Message.Equal(o.Message) && m.NodesByPool.Equal(o.NodesByPool)
}

type runtimeEnvModel struct {
	Pip types.List `tfsdk:"pip"`
}

type headModel struct {
	CPU          types.String `tfsdk:"cpu"`
	Memory       types.String `tfsdk:"memory"`
	NodeSelector types.Map    `tfsdk:"node_selector"`
}

type tpuWorkersModel struct {
	GroupName    types.String `tfsdk:"group_name"`
	Accelerator  types.String `tfsdk:"accelerator"`
	Topology     types.String `tfsdk:"topology"`
	ChipsPerNode types.Int64  `tfsdk:"chips_per_node"`
	Replicas     types.Int64  `tfsdk:"replicas"`
	MinReplicas  types.Int64  `tfsdk:"min_replicas"`
	MaxReplicas  types.Int64  `tfsdk:"max_replicas"`
	CPU          types.String `tfsdk:"cpu"`
	Memory       types.String `tfsdk:"memory"`
}

type gpuWorkersModel struct {
	GroupName   types.String `tfsdk:"group_name"`
	Accelerator types.String `tfsdk:"accelerator"`
	GPUs        types.Int64  `tfsdk:"gpus"`
	Replicas    types.Int64  `tfsdk:"replicas"`
	MinReplicas types.Int64  `tfsdk:"min_replicas"`
	MaxReplicas types.Int64  `tfsdk:"max_replicas"`
	CPU         types.String `tfsdk:"cpu"`
	Memory      types.String `tfsdk:"memory"`
}

// workerGroup is the worker group either kind of workers makes: what expandRayJob needs of them.
type workerGroup struct {
	attr                 string // tpu_workers or gpu_workers, for messages
	name                 string
	hosts                int32
	replicas, minR, maxR int64
	cpu, memory          types.String
	accelerator          corev1.ResourceName
	perPod               int64
	selector             map[string]string
	acceleratorTaint     string
}

// workers is the job's worker group, TPU or GPU (the schema allows exactly one).
func (m *rayJobModel) workers() (workerGroup, error) {
	if g := m.GPUWorkers; g != nil {
		return workerGroup{
			attr: "gpu_workers", name: g.GroupName.ValueString(), hosts: 1,
			replicas: g.Replicas.ValueInt64(), minR: g.MinReplicas.ValueInt64(), maxR: g.MaxReplicas.ValueInt64(),
			cpu: g.CPU, memory: g.Memory, accelerator: wellknown.GPUResource, perPod: g.GPUs.ValueInt64(),
			selector: map[string]string{wellknown.GPUAcceleratorLabel: g.Accelerator.ValueString()}, acceleratorTaint: wellknown.GPUResource,
		}, nil
	}
	w := m.TPUWorkers
	if w == nil {
		return workerGroup{}, fmt.Errorf("the job has neither tpu_workers nor gpu_workers")
	}
	hosts, err := numOfHosts(w.Topology.ValueString(), w.ChipsPerNode.ValueInt64())
	if err != nil {
		return workerGroup{}, err
	}
	return workerGroup{
		attr: "tpu_workers", name: w.GroupName.ValueString(), hosts: hosts,
		replicas: w.Replicas.ValueInt64(), minR: w.MinReplicas.ValueInt64(), maxR: w.MaxReplicas.ValueInt64(),
		cpu: w.CPU, memory: w.Memory, accelerator: wellknown.TPUResource, perPod: w.ChipsPerNode.ValueInt64(),
		selector:         map[string]string{wellknown.TPUAcceleratorLabel: w.Accelerator.ValueString(), wellknown.TPUTopologyLabel: w.Topology.ValueString()},
		acceleratorTaint: wellknown.TPUResource,
	}, nil
}

// The RayJob's own names: the volume of its files, the hash of what it was made from, where the files go.
const (
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
	if m.Head == nil {
		// A state whose head a refresh read as gone (its ray-head container removed by hand): the plan replaces it.
		return nil, fmt.Errorf("the job has no head")
	}
	w, err := m.workers()
	if err != nil {
		return nil, err
	}
	labels := tfvalue.StringMap(m.Labels)
	if q := m.Queue.ValueString(); q != "" {
		labels[wellknown.QueueNameLabel] = q
	}
	annotations := tfvalue.StringMap(m.Annotations)
	if m.Elastic.ValueBool() {
		annotations[wellknown.ElasticJobAnnotation] = "true"
	}
	var mounts []corev1.VolumeMount
	var volumes []corev1.Volume
	if len(m.Files.Elements()) > 0 {
		mounts = []corev1.VolumeMount{{Name: filesVolume, MountPath: m.FilesMountPath.ValueString()}}
		volumes = []corev1.Volume{{Name: filesVolume, VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: m.FilesConfigMap.ValueString()}}}}}
	}
	env := envVars(tfvalue.StringMap(m.Env))
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
		corev1.ResourceCPU: q(w.attr+".cpu", w.cpu), corev1.ResourceMemory: q(w.attr+".memory", w.memory),
		w.accelerator: *resource.NewQuantity(w.perPod, resource.DecimalSI),
	}
	if qerr != nil {
		return nil, qerr
	}
	var pip []string
	if m.RuntimeEnv != nil {
		pip = tfvalue.StringList(m.RuntimeEnv.Pip)
	}
	runtimeEnv, err := runtimeEnvYAML(pip)
	if err != nil {
		return nil, err
	}
	autoscaling := m.EnableInTreeAutoscaling.ValueBool()
	replicas, minR, maxR := int32(w.replicas), int32(w.minR), int32(w.maxR) //nolint:gosec // small counts
	headSelector := tfvalue.StringMap(m.Head.NodeSelector)
	if len(headSelector) == 0 {
		headSelector = nil
	}
	tolerations := []corev1.Toleration{
		{Key: w.acceleratorTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: wellknown.QueuedTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	}
	selector := w.selector
	if class := m.ComputeClass.ValueString(); class != "" {
		selector = maps.Clone(w.selector)
		selector[wellknown.ComputeClassLabel] = class
		tolerations = append(tolerations, corev1.Toleration{Key: wellknown.ComputeClassLabel, Operator: corev1.TolerationOpEqual, Value: class, Effect: corev1.TaintEffectNoSchedule})
	}
	job := &rayv1.RayJob{
		TypeMeta: metav1.TypeMeta{APIVersion: rayv1.GroupVersion.String(), Kind: "RayJob"},
		ObjectMeta: metav1.ObjectMeta{
			Name: m.Name.ValueString(), Namespace: m.Namespace.ValueString(),
			Labels: tfvalue.NilIfEmpty(labels), Annotations: tfvalue.NilIfEmpty(annotations),
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
					NumOfHosts:     w.hosts,
					GroupName:      w.name,
					RayStartParams: map[string]string{},
					Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
						Tolerations: tolerations,
						Containers: []corev1.Container{{
							Name:         "ray-worker",
							Image:        image,
							Env:          env,
							Resources:    corev1.ResourceRequirements{Limits: workerRes, Requests: workerRes.DeepCopy()},
							VolumeMounts: mounts,
						}},
						Volumes:      volumes,
						NodeSelector: selector,
					}},
				}},
			},
		},
	}
	return job, nil
}

// tolerationClass is the ComputeClass whose taint a worker group tolerates: the class the provider selected. Its
// node selector cannot tell, since Kueue adds a flavor's node labels there.
func tolerationClass(tols []corev1.Toleration) types.String {
	for _, t := range tols {
		if t.Key == wellknown.ComputeClassLabel && t.Value != "" {
			return types.StringValue(t.Value)
		}
	}
	return types.StringNull()
}

// expandFilesConfigMap is the ConfigMap `kubectl create configmap NAME --from-file=...` makes of files.
func expandFilesConfigMap(m *rayJobModel) *corev1.ConfigMap {
	if len(m.Files.Elements()) == 0 {
		return nil
	}
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: m.FilesConfigMap.ValueString(), Namespace: m.Namespace.ValueString()},
		Data:       tfvalue.StringMap(m.Files),
	}
}

func resourceParse(s string) (resource.Quantity, error) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return q, fmt.Errorf("%q is not a Kubernetes quantity (examples: 2, 500m, 4Gi)", s)
	}
	return q, nil
}

// flattenJobStatus sets the computed attributes from the job and its Workload.
func flattenJobStatus(m *rayJobStatusModel, p jobProgress) {
	st := p.job.Status
	m.JobStatus = types.StringValue(string(st.JobStatus))
	m.JobDeploymentStatus = types.StringValue(string(st.JobDeploymentStatus))
	m.RayClusterName = types.StringValue(st.RayClusterName)
	m.DashboardURL = types.StringValue(st.DashboardURL)
	m.StartTime, m.EndTime = timeValue(st.StartTime), timeValue(st.EndTime)
	m.Message = types.StringValue(st.Message)
	m.WorkloadName, m.AdmittedFlavor, m.DispatchedTo = types.StringValue(""), types.StringValue(""), types.StringValue("")
	m.Admitted = types.BoolValue(p.admitted())
	checks := map[string]attr.Value{}
	if wl := p.wl; wl != nil {
		m.WorkloadName = types.StringValue(wl.Name)
		m.AdmittedFlavor = types.StringValue(acceleratorAssignment(wl))
		if wl.Status.ClusterName != nil {
			m.DispatchedTo = types.StringValue(*wl.Status.ClusterName)
		}
		for _, ch := range wl.Status.AdmissionChecks {
			checks[string(ch.Name)] = types.StringValue(string(ch.State))
		}
		if m.Message.ValueString() == "" {
			m.Message = types.StringValue(p.phase())
		}
	}
	m.AdmissionChecks = types.MapValueMust(types.StringType, checks)
	m.NodesByPool = nodeCounts(p.pods, p.nodePools)
}

func timeValue(t *metav1.Time) types.String {
	if t == nil {
		return types.StringValue("")
	}
	return types.StringValue(t.UTC().Format(time.RFC3339))
}

// withSpecHash marks the job with a hash of what was submitted, so a retry after an interrupted apply can tell its
// own job from someone else's of the same name.
func withSpecHash(job *rayv1.RayJob) map[string]string {
	b, _ := json.Marshal(struct {
		Labels map[string]string
		Spec   rayv1.RayJobSpec
	}{job.Labels, job.Spec})
	sum := sha256.Sum256(b)
	out := map[string]string{specHashAnnotation: hex.EncodeToString(sum[:8])}
	for k, v := range job.Annotations {
		out[k] = v
	}
	return out
}

func setUnknownStatus(m *rayJobStatusModel) {
	m.DispatchedTo = types.StringValue("")
	m.WorkloadName, m.AdmittedFlavor, m.JobStatus, m.JobDeploymentStatus = types.StringValue(""), types.StringValue(""), types.StringValue(""), types.StringValue("")
	m.RayClusterName, m.DashboardURL, m.StartTime, m.EndTime, m.Message = types.StringValue(""), types.StringValue(""), types.StringValue(""), types.StringValue(""), types.StringValue("")
	m.Admitted, m.AdmissionChecks = types.BoolValue(false), types.MapValueMust(types.StringType, nil)
	m.NodesByPool = types.MapValueMust(types.Int64Type, nil)
}

func rayJobTimeoutsNull() timeouts.Value {
	return timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "delete": types.StringType})}
}
