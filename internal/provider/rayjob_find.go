package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

func resourceParse(s string) (resource.Quantity, error) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return q, fmt.Errorf("%q is not a Kubernetes quantity (examples: 2, 500m, 4Gi)", s)
	}
	return q, nil
}

// findWorkload returns Kueue's Workload for a job (linked by the kueue.x-k8s.io/job-uid label), or nil.
func findWorkload(ctx context.Context, c *kube.Clients, job *rayv1.RayJob) (*kueue.Workload, error) {
	// ResourceVersion "0" lets the API server answer from its watch cache. A quorum list cannot use the index: the
	// server reads every Workload of the namespace from etcd, decodes and filters them, once per job, which made a
	// 100-job refresh cost 17 s of API server CPU (bench/results.md). A Workload status a few milliseconds old is
	// fine for a refresh, and a wait is woken again by the next watch event.
	list, err := c.Kueue.KueueV1beta2().Workloads(job.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: "kueue.x-k8s.io/job-uid=" + string(job.UID), ResourceVersion: "0",
	})
	if err != nil || len(list.Items) == 0 {
		return nil, err
	}
	// With workload slices an elastic job can have several; the newest is the live one.
	sort.Slice(list.Items, func(i, j int) bool {
		return list.Items[i].CreationTimestamp.After(list.Items[j].CreationTimestamp.Time)
	})
	return &list.Items[0], nil
}

// jobProgress is where a job stands, for waiting and for state.
type jobProgress struct {
	job *rayv1.RayJob
	wl  *kueue.Workload
}

func (p jobProgress) admitted() bool {
	if p.wl == nil {
		return false
	}
	ok, _ := conditionTrue(p.wl.Status.Conditions, kueue.WorkloadAdmitted)
	return ok
}

func (p jobProgress) finished() bool {
	s := p.job.Status.JobDeploymentStatus
	return s == rayv1.JobDeploymentStatusComplete || s == rayv1.JobDeploymentStatusFailed
}

func (p jobProgress) running() bool {
	return p.job.Status.JobDeploymentStatus == rayv1.JobDeploymentStatusRunning || p.finished()
}

// phase says in words where the job is, for progress logs and timeout messages.
func (p jobProgress) phase() string {
	switch {
	case p.wl == nil:
		return "waiting for Kueue to create its Workload"
	case p.admitted():
		return fmt.Sprintf("admitted on %s; KubeRay deployment %s", tpuAssignment(p.wl), orNone(string(p.job.Status.JobDeploymentStatus)))
	case p.wl.Status.Admission != nil:
		var checks []string
		for _, ch := range p.wl.Status.AdmissionChecks {
			checks = append(checks, fmt.Sprintf("%s %s%s", ch.Name, ch.State, because(ch.Message)))
		}
		return fmt.Sprintf("quota reserved on %s; waiting for admission checks: %s", tpuAssignment(p.wl), strings.Join(checks, ", "))
	default:
		_, msg := conditionTrue(p.wl.Status.Conditions, kueue.WorkloadQuotaReserved)
		return "queued" + because(msg)
	}
}

func orNone(s string) string {
	if s == "" {
		return "not started"
	}
	return s
}

// tpuAssignment is the flavor of the pod set that asks for TPUs (else the first assigned flavor).
func tpuAssignment(wl *kueue.Workload) string {
	if wl == nil || wl.Status.Admission == nil {
		return ""
	}
	first := ""
	for _, ps := range wl.Status.Admission.PodSetAssignments {
		if f, ok := ps.Flavors[tpuResource]; ok {
			return string(f)
		}
		for _, f := range ps.Flavors {
			if first == "" {
				first = string(f)
			}
		}
	}
	return first
}

// readProgress reads the job and its Workload.
func readProgress(ctx context.Context, c *kube.Clients, ns, name string) (jobProgress, error) {
	job, err := c.Ray.RayV1().RayJobs(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return jobProgress{}, err
	}
	wl, err := findWorkload(ctx, c, job)
	return jobProgress{job: job, wl: wl}, err
}

// waitJob waits, woken by watch events on the job's Workloads and the job, until it reaches waitFor. Each new phase
// is logged, and the phase again every progressEvery, so `TF_LOG=info terraform apply` shows why it waits. It fails
// early when Kueue says the job cannot be admitted as things stand, and when placed (if placed is not nil) says the
// job was admitted where it can never run.
func waitJob(ctx context.Context, c *kube.Clients, ns, name, waitFor string, placed func(context.Context, jobProgress) error) (jobProgress, error) {
	var last jobProgress
	lastPhase, lastLog := "", time.Time{}
	reached := func(p jobProgress) bool {
		switch waitFor {
		case "admitted":
			return p.admitted()
		case "running":
			return p.running()
		case "complete":
			return p.finished()
		}
		return true
	}
	checkedPlacement := false
	err := waitUntil(ctx, func(ctx context.Context) (bool, error) {
		p, err := readProgress(ctx, c, ns, name)
		if kueueMissing(err) {
			return false, fmt.Errorf("the cluster %s does not serve Kueue's Workload API, so nothing will ever admit the job: install Kueue "+
				"(dwsfallback_kueue_install), or drop queue and wait_for = \"none\": %w", c.Host, err)
		}
		if err != nil {
			return false, err
		}
		last = p
		if ph := p.phase(); ph != lastPhase || time.Since(lastLog) >= progressEvery {
			lastPhase, lastLog = ph, time.Now()
			tflog.Info(ctx, fmt.Sprintf("RayJob %s/%s: %s", ns, name, ph))
		}
		if why := inadmissible(p.wl, time.Now()); why != "" && waitFor != "none" {
			return false, fmt.Errorf("Kueue cannot admit the job as things stand: %s", why)
		}
		if p.admitted() && placed != nil && !checkedPlacement {
			if err := placed(ctx, p); err != nil {
				return false, err
			}
			checkedPlacement = true
		}
		if p.job.Status.JobDeploymentStatus == rayv1.JobDeploymentStatusFailed && waitFor != "none" && waitFor != "admitted" {
			return false, fmt.Errorf("the job failed: %s %s", p.job.Status.Reason, p.job.Status.Message)
		}
		return reached(p), nil
	}, func(ctx context.Context) (watch.Interface, error) {
		// Only this job's Workloads: a watch of the namespace would wake every waiting job on every other job's
		// events, which costs a read per job per event (quadratic in the number of jobs applied together).
		job, err := c.Ray.RayV1().RayJobs(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return c.Kueue.KueueV1beta2().Workloads(ns).Watch(ctx, metav1.ListOptions{LabelSelector: "kueue.x-k8s.io/job-uid=" + string(job.UID)})
	}, func(ctx context.Context) (watch.Interface, error) {
		return c.Ray.RayV1().RayJobs(ns).Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
	})
	if err != nil && last.job != nil {
		return last, fmt.Errorf("RayJob %s/%s did not get to %q: %w; last: %s", ns, name, waitFor, err, last.phase())
	}
	return last, err
}

const (
	// progressEvery is how often a wait says where the job stands even when nothing changed.
	progressEvery = 30 * time.Second
	// inadmissibleGrace lets a LocalQueue or quota created in the same apply arrive before a wait gives up.
	inadmissibleGrace = 20 * time.Second
)

// inadmissible returns Kueue's reason when the Workload cannot be admitted as things stand (its LocalQueue or
// ClusterQueue missing or inactive, or no flavor that could ever fit it: a request above every flavor's maximum
// capacity, node labels or taints no flavor matches, a resource the queue does not cover), or "" while waiting can
// still help (quota in use by others).
func inadmissible(wl *kueue.Workload, now time.Time) string {
	if wl == nil || wl.Status.Admission != nil {
		return ""
	}
	for _, c := range wl.Status.Conditions {
		if c.Type != kueue.WorkloadQuotaReserved || c.Status != metav1.ConditionFalse || now.Sub(c.LastTransitionTime.Time) < inadmissibleGrace {
			continue
		}
		switch {
		case c.Reason == kueue.WorkloadInadmissible:
			return c.Message
		case strings.HasPrefix(c.Message, "couldn't assign flavors") && !strings.Contains(c.Message, "insufficient unused quota"):
			return c.Message
		}
	}
	return ""
}

// kueueMissing reports the error of a cluster that has no Kueue API at all.
func kueueMissing(err error) bool {
	return apierrors.IsNotFound(err) && strings.Contains(err.Error(), "the server could not find the requested resource")
}

// flattenJobStatus sets the computed attributes from the job and its Workload.
func flattenJobStatus(m *rayJobModel, p jobProgress) {
	st := p.job.Status
	m.JobStatus = types.StringValue(string(st.JobStatus))
	m.JobDeploymentStatus = types.StringValue(string(st.JobDeploymentStatus))
	m.RayClusterName = types.StringValue(st.RayClusterName)
	m.DashboardURL = types.StringValue(st.DashboardURL)
	m.StartTime, m.EndTime = timeValue(st.StartTime), timeValue(st.EndTime)
	m.Message = types.StringValue(st.Message)
	m.WorkloadName, m.AdmittedFlavor = types.StringValue(""), types.StringValue("")
	m.Admitted = types.BoolValue(p.admitted())
	checks := map[string]attr.Value{}
	if wl := p.wl; wl != nil {
		m.WorkloadName = types.StringValue(wl.Name)
		m.AdmittedFlavor = types.StringValue(tpuAssignment(wl))
		for _, ch := range wl.Status.AdmissionChecks {
			checks[string(ch.Name)] = types.StringValue(string(ch.State))
		}
		if m.Message.ValueString() == "" {
			m.Message = types.StringValue(p.phase())
		}
	}
	m.AdmissionChecks = types.MapValueMust(types.StringType, checks)
}

func timeValue(t *metav1.Time) types.String {
	if t == nil {
		return types.StringValue("")
	}
	return types.StringValue(t.UTC().Format(time.RFC3339))
}

// jobGone reports whether err says the RayJob does not exist.
func jobGone(err error) bool { return apierrors.IsNotFound(err) }

// flattenRayJobSpec reads a job's configuration back, for import: the reverse of expandRayJob. What Kueue and KubeRay
// add to a job (injected node selectors, suspend, their annotations) is left out.
func flattenRayJobSpec(m *rayJobModel, job *rayv1.RayJob, cm *corev1.ConfigMap) {
	m.Namespace, m.Name = types.StringValue(job.Namespace), types.StringValue(job.Name)
	labels := map[string]string{}
	for k, v := range job.Labels {
		if k == queueNameLabel {
			m.Queue = types.StringValue(v)
		} else if !strings.Contains(k, "kueue.x-k8s.io/") && !strings.Contains(k, "ray.io/") {
			labels[k] = v
		}
	}
	annotations := map[string]string{}
	m.Elastic = types.BoolValue(false)
	for k, v := range job.Annotations {
		switch {
		case k == elasticJobAnnotation:
			m.Elastic = types.BoolValue(v == "true")
		case k == specHashAnnotation, k == kubectlLastApplied, strings.HasPrefix(k, "kueue.x-k8s.io/"), strings.HasPrefix(k, "autoscaling.x-k8s.io/"), strings.Contains(k, "ray.io/"):
		default:
			annotations[k] = v
		}
	}
	m.Labels, m.Annotations = mapValue(labels), mapValue(annotations)
	spec := job.Spec
	m.Entrypoint = types.StringValue(spec.Entrypoint)
	m.ShutdownAfterJobFinishes = types.BoolValue(spec.ShutdownAfterJobFinishes)
	m.RuntimeEnv = nil
	if spec.RuntimeEnvYAML != "" {
		var env struct {
			Pip []string `json:"pip"`
		}
		if yaml.Unmarshal([]byte(spec.RuntimeEnvYAML), &env) == nil {
			var pip []attr.Value
			for _, p := range env.Pip {
				pip = append(pip, types.StringValue(p))
			}
			m.RuntimeEnv = &runtimeEnvModel{Pip: types.ListValueMust(types.StringType, pip)}
		}
	}
	rc := spec.RayClusterSpec
	if rc == nil {
		return
	}
	m.EnableInTreeAutoscaling = types.BoolValue(rc.EnableInTreeAutoscaling != nil && *rc.EnableInTreeAutoscaling)
	head := rc.HeadGroupSpec.Template.Spec
	m.Head = &headModel{NodeSelector: mapValue(head.NodeSelector)}
	if len(head.Containers) > 0 {
		hc := head.Containers[0]
		m.Image = types.StringValue(hc.Image)
		m.Head.CPU = types.StringValue(hc.Resources.Requests.Cpu().String())
		m.Head.Memory = types.StringValue(hc.Resources.Requests.Memory().String())
		env := map[string]string{}
		for _, e := range hc.Env {
			env[e.Name] = e.Value
		}
		m.Env = mapValue(env)
		for _, vm := range hc.VolumeMounts {
			if vm.Name == filesVolume {
				m.FilesMountPath = types.StringValue(vm.MountPath)
			}
		}
	}
	for _, v := range head.Volumes {
		if v.Name == filesVolume && v.ConfigMap != nil {
			m.FilesConfigMap = types.StringValue(v.ConfigMap.Name)
		}
	}
	if cm != nil {
		m.Files = mapValue(cm.Data)
	}
	for _, g := range rc.WorkerGroupSpecs {
		if len(g.Template.Spec.Containers) == 0 {
			continue
		}
		wc := g.Template.Spec.Containers[0]
		chips, ok := wc.Resources.Limits[tpuResource]
		if !ok {
			continue
		}
		w := &tpuWorkersModel{
			GroupName:    types.StringValue(g.GroupName),
			Accelerator:  types.StringValue(g.Template.Spec.NodeSelector[tpuAcceleratorLabel]),
			Topology:     types.StringValue(g.Template.Spec.NodeSelector[tpuTopologyLabel]),
			ChipsPerNode: types.Int64Value(chips.Value()),
			CPU:          types.StringValue(wc.Resources.Requests.Cpu().String()),
			Memory:       types.StringValue(wc.Resources.Requests.Memory().String()),
		}
		m.NumOfHosts = types.Int64Value(int64(g.NumOfHosts))
		i64 := func(p *int32) types.Int64 {
			if p == nil {
				return types.Int64Value(0)
			}
			return types.Int64Value(int64(*p))
		}
		w.Replicas, w.MinReplicas, w.MaxReplicas = i64(g.Replicas), i64(g.MinReplicas), i64(g.MaxReplicas)
		m.TPUWorkers = w
		break
	}
}
