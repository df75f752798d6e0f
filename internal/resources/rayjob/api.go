package rayjob

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	kptr "k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kueueuse"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// findWorkload returns Kueue's Workload for a job (linked by the kueue.x-k8s.io/job-uid label), or nil.
func findWorkload(ctx context.Context, c *kube.Clients, job *rayv1.RayJob) (*kueue.Workload, error) {
	// ResourceVersion "0" lets the API server answer from its watch cache. A quorum list cannot use the index: the
	// server reads every Workload of the namespace from etcd, decodes and filters them, once per job, which made a
	// 100-job refresh cost 17 s of API server CPU (bench/results.md). A Workload status a few milliseconds old is
	// fine for a refresh, and a wait is woken again by the next watch event.
	list, err := c.Kueue.KueueV1beta2().Workloads(job.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: wellknown.JobUIDLabel + "=" + string(job.UID), ResourceVersion: "0",
	})
	if err != nil {
		return nil, err
	}
	return kube.NewestWorkload(list.Items), nil
}

// jobProgress is where a job stands, for waiting and for state.
type jobProgress struct {
	job *rayv1.RayJob
	wl  *kueue.Workload
	// pods are the job's RayCluster pods, for where they run.
	pods []corev1.Pod
	// nodePools is the pool of each node that runs a pod with no pool in its node selector (a ComputeClass's pods,
	// which the autoscaler places on any of the class's pools).
	nodePools map[string]string
	// noKueue is set when the cluster serves no Workload API: nothing will ever admit a queued job there.
	noKueue bool
	// at is the cluster the pods were read on: the job's, or the MultiKueue worker it was dispatched to.
	at *kube.Clients
}

// podsAt is the cluster the pods were read on, c when none was recorded.
func (p jobProgress) podsAt(c *kube.Clients) *kube.Clients {
	if p.at != nil {
		return p.at
	}
	return c
}

func (p jobProgress) admitted() bool {
	if p.wl == nil {
		return false
	}
	ok, _ := kube.ConditionTrue(p.wl.Status.Conditions, kueue.WorkloadAdmitted)
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
		return fmt.Sprintf("admitted on %s; KubeRay deployment %s", acceleratorAssignment(p.wl), orNone(string(p.job.Status.JobDeploymentStatus)))
	case p.wl.Status.Admission != nil:
		var checks []string
		for _, ch := range p.wl.Status.AdmissionChecks {
			checks = append(checks, fmt.Sprintf("%s %s%s", ch.Name, ch.State, kueueuse.Because(ch.Message)))
		}
		return fmt.Sprintf("quota reserved on %s; waiting for admission checks: %s", acceleratorAssignment(p.wl), strings.Join(checks, ", "))
	default:
		_, msg := kube.ConditionTrue(p.wl.Status.Conditions, kueue.WorkloadQuotaReserved)
		return "queued" + kueueuse.Because(msg)
	}
}

// acceleratorAssignment is the flavor of the pod set that asks for TPUs or GPUs (else the first assigned flavor).
func acceleratorAssignment(wl *kueue.Workload) string {
	if wl == nil || wl.Status.Admission == nil {
		return ""
	}
	first := ""
	for _, ps := range wl.Status.Admission.PodSetAssignments {
		for _, r := range []corev1.ResourceName{wellknown.TPUResource, wellknown.GPUResource} {
			if f, ok := ps.Flavors[r]; ok {
				return string(f)
			}
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
	return readProgressWith(ctx, c, ns, name, getRayJob, jobPods, findWorkload)
}

// refreshProgress is readProgress for a refresh: the job, its pods and Workloads come from the namespace's shared
// LISTs. files says the job's files will be read too.
func refreshProgress(ctx context.Context, c *kube.Clients, ns, name string, files bool) (jobProgress, error) {
	jobReads.Start(ctx, c, ns, files)
	return readProgressWith(ctx, c, ns, name, jobReads.RayJob, jobReads.JobPods, jobReads.Workload)
}

// jobReads shares a refresh's LISTs of each namespace among the Reads of its RayJobs (see kube.JobReads).
var jobReads kube.JobReads

// ForgetSharedReads drops the LISTs a refresh shares, so that the next Read reads the objects as they are now: the
// read shortcut's differential test reads each case twice, through each server.
func ForgetSharedReads() { jobReads.Reset() }

func getRayJob(ctx context.Context, c *kube.Clients, ns, name string) (*rayv1.RayJob, error) {
	return c.Ray.RayV1().RayJobs(ns).Get(ctx, name, metav1.GetOptions{})
}

func readProgressWith(ctx context.Context, c *kube.Clients, ns, name string,
	get func(context.Context, *kube.Clients, string, string) (*rayv1.RayJob, error),
	pods func(context.Context, *kube.Clients, *rayv1.RayJob) ([]corev1.Pod, error),
	workload func(context.Context, *kube.Clients, *rayv1.RayJob) (*kueue.Workload, error),
) (jobProgress, error) {
	job, err := get(ctx, c, ns, name)
	if err != nil {
		return jobProgress{}, err
	}
	wl, err := workload(ctx, c, job)
	noKueue := kube.APIMissing(err)
	if err != nil && !noKueue {
		return jobProgress{}, err
	}
	// A job MultiKueue dispatched runs on the worker: the manager's copy carries the worker's status (its RayCluster's
	// name), and the pods are there. A worker that cannot be reached, or does not answer, leaves the pods unknown, not
	// the read failed.
	at := c
	if wl != nil && wl.Status.ClusterName != nil && c.Worker != nil {
		worker := *wl.Status.ClusterName
		at, err = c.Worker(ctx, worker)
		var ps []corev1.Pod
		var nodePools map[string]string
		if err == nil {
			ps, err = pods(ctx, at, job)
		}
		if err == nil {
			nodePools, err = poolsOfUnpinnedPods(ctx, at, ps)
		}
		if err != nil {
			tflog.Debug(ctx, "the worker that runs the job did not answer; its pods stay uncounted", map[string]any{"worker": worker, "error": err.Error()})
			return jobProgress{job: job, wl: wl, noKueue: noKueue}, nil //nolint:nilerr // the pods stay unknown; the job and Workload are read
		}
		return jobProgress{job: job, wl: wl, pods: ps, nodePools: nodePools, noKueue: noKueue, at: at}, nil
	}
	ps, err := pods(ctx, at, job)
	if err != nil {
		return jobProgress{}, err
	}
	nodePools, err := poolsOfUnpinnedPods(ctx, at, ps)
	if err != nil {
		return jobProgress{}, err
	}
	return jobProgress{job: job, wl: wl, pods: ps, nodePools: nodePools, noKueue: noKueue, at: c}, nil
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
			// A job without a queue is not Kueue's to admit: there is nothing to wait for.
			return p.admitted() || p.job.Labels[wellknown.QueueNameLabel] == ""
		case "running":
			return p.running()
		case "complete":
			return p.finished()
		}
		return true
	}
	checkedPlacement := false
	err := kube.WaitUntilDue(ctx, func(ctx context.Context) (bool, time.Time, error) {
		p, err := readProgress(ctx, c, ns, name)
		if err == nil && p.noKueue && p.job.Labels[wellknown.QueueNameLabel] != "" && waitFor != "none" {
			return false, time.Time{}, fmt.Errorf("the cluster %s does not serve Kueue's Workload API, so nothing will ever admit the job: install Kueue "+
				"(dwsfallback_kueue_install), or drop queue and wait_for = \"none\"", c.Host)
		}
		if err != nil {
			return false, time.Time{}, err
		}
		last = p
		if ph := p.phase(); ph != lastPhase || time.Since(lastLog) >= progressEvery {
			lastPhase, lastLog = ph, time.Now()
			tflog.Info(ctx, fmt.Sprintf("RayJob %s/%s: %s", ns, name, ph))
		}
		why, due := inadmissible(p.wl, time.Now())
		if why != "" && waitFor != "none" {
			return false, time.Time{}, fmt.Errorf("Kueue cannot admit the job as things stand: %s", why)
		}
		if why = deactivated(p.wl); why != "" && waitFor != "none" {
			return false, time.Time{}, fmt.Errorf("Kueue will not admit the job: %s", why)
		}
		if p.admitted() && placed != nil && !checkedPlacement {
			if err := placed(ctx, p); err != nil {
				return false, time.Time{}, err
			}
			checkedPlacement = true
		}
		if p.job.Status.JobDeploymentStatus == rayv1.JobDeploymentStatusFailed && waitFor != "none" && waitFor != "admitted" {
			return false, time.Time{}, fmt.Errorf("the job failed: %s %s", p.job.Status.Reason, p.job.Status.Message)
		}
		if (waitFor == "running" || waitFor == "complete") && !p.running() && (p.admitted() || p.job.Labels[wellknown.QueueNameLabel] == "") {
			if why, err := noNodeFor(ctx, p.podsAt(c), p.pods, time.Now()); err != nil || why != "" {
				return false, time.Time{}, errors.Join(err, errorIf(why))
			}
		}
		return reached(p), due, nil
	}, func(ctx context.Context) (watch.Interface, error) {
		// Only this job's Workloads: a watch of the namespace would wake every waiting job on every other job's
		// events, which costs a read per job per event (quadratic in the number of jobs applied together).
		job, err := c.Ray.RayV1().RayJobs(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return c.Kueue.KueueV1beta2().Workloads(ns).Watch(ctx, metav1.ListOptions{LabelSelector: wellknown.JobUIDLabel + "=" + string(job.UID)})
	}, func(ctx context.Context) (watch.Interface, error) {
		return c.Ray.RayV1().RayJobs(ns).Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
	}, func(ctx context.Context) (watch.Interface, error) {
		// The cluster autoscaler's word on pods that find no node: a failed scale-up ends the wait at once.
		if waitFor != "running" && waitFor != "complete" {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return c.Core.Events(ns).Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("source", autoscalerSource).String()})
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

// deactivated says why Kueue took the Workload out of admission for good (until someone sets it active again), ""
// while it may still be admitted. A rejected admission check is final in Kueue (a DWS request that failed with no
// retries left): Kueue marks the Workload to be deactivated, then deactivates it, evicts it with the cause in the
// reason (DeactivatedDueTo...) and resets its checks to Pending. An Evicted condition alone is no sign: it stays
// after the Workload is set active again, until Kueue reserves quota for it.
func deactivated(wl *kueue.Workload) string {
	if wl == nil {
		return ""
	}
	for _, ch := range wl.Status.AdmissionChecks {
		if ch.State == kueue.CheckStateRejected {
			return fmt.Sprintf("its admission check %s was rejected%s", ch.Name, kueueuse.Because(ch.Message))
		}
	}
	if marked, msg := kube.ConditionTrue(wl.Status.Conditions, kueue.WorkloadDeactivationTarget); marked {
		return "its Workload is to be deactivated: " + msg
	}
	if wl.Spec.Active == nil || *wl.Spec.Active {
		return ""
	}
	if c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadEvicted); c != nil && c.Status == metav1.ConditionTrue &&
		strings.HasPrefix(c.Reason, kueue.WorkloadDeactivated) {
		return "its Workload is deactivated: " + c.Message
	}
	return "its Workload is deactivated (spec.active is false)"
}

// inadmissible returns Kueue's reason when the Workload cannot be admitted as things stand (its LocalQueue or
// ClusterQueue missing or inactive, or no flavor that could ever fit it: a request above every flavor's maximum
// capacity, node labels or taints no flavor matches, a resource the queue does not cover), or "" while waiting can
// still help (quota in use by others). While such a reason waits out its grace, due is when the grace ends: nothing
// else changes then, so no event would wake the wait.
func inadmissible(wl *kueue.Workload, now time.Time) (why string, due time.Time) {
	if wl == nil || wl.Status.Admission != nil {
		return "", time.Time{}
	}
	for _, c := range wl.Status.Conditions {
		if c.Type != kueue.WorkloadQuotaReserved || c.Status != metav1.ConditionFalse {
			continue
		}
		final := c.Reason == kueue.WorkloadInadmissible ||
			strings.HasPrefix(c.Message, "couldn't assign flavors") && !strings.Contains(c.Message, "insufficient unused quota")
		if !final {
			continue
		}
		if end := c.LastTransitionTime.Add(inadmissibleGrace); now.Before(end) {
			return "", end
		}
		return c.Message, time.Time{}
	}
	return "", time.Time{}
}

// jobGone reports whether err says the RayJob does not exist.
func jobGone(err error) bool {
	// A 404 for the whole API (KubeRay not installed) is not a deleted job.
	return apierrors.IsNotFound(err) && !strings.Contains(err.Error(), "the server could not find the requested resource")
}

// checkPlacement fails when Kueue admitted the TPU workers on a flavor whose nodes cannot run them: its node labels, or
// the node pool they name (read from GKE), have another TPU accelerator or topology. Kueue compares only the label keys
// a flavor lists, so a flavor bound by its pool label alone admits jobs of every TPU generation, and such a job would
// report admitted and then pend forever.
func (r *rayJobResource) checkPlacement(ctx context.Context, c *kube.Clients, m *rayJobModel, p jobProgress) error {
	flavor := acceleratorAssignment(p.wl)
	if flavor == "" || (m.TPUWorkers == nil && m.GPUWorkers == nil) {
		return nil
	}
	// What cannot be read leaves the admission standing: this check only ever refuses what it can show is wrong.
	rf, err := c.Kueue.KueueV1beta2().ResourceFlavors().Get(ctx, flavor, metav1.GetOptions{})
	if err != nil {
		tflog.Debug(ctx, "cannot read the admitted flavor; not checking placement", map[string]any{"flavor": flavor, "error": err.Error()})
		return nil //nolint:nilerr // what cannot be read is not shown wrong
	}
	if g := m.GPUWorkers; g != nil {
		return gpuPlacement(flavor, rf.Spec.NodeLabels, g)
	}
	w := m.TPUWorkers
	want := fmt.Sprintf("%s %s", w.Accelerator.ValueString(), w.Topology.ValueString())
	mismatch := func(where, accel, topo string) error {
		return fmt.Errorf("Kueue admitted the TPU workers on flavor %s, whose nodes (%s) have %s %s, but the workers ask for %s: no node can "+
			"ever run them. Kueue matched them to %s because its node_labels do not name the accelerator and topology; wire each flavor's "+
			"node_labels from its pool pair (on_demand.node_labels, flex_start.node_labels), which carry both, and submit the job again",
			flavor, where, accel, topo, want, flavor)
	}
	labels := rf.Spec.NodeLabels
	accel, hasAccel := labels[wellknown.TPUAcceleratorLabel]
	topo, hasTopo := labels[wellknown.TPUTopologyLabel]
	if (hasAccel && accel != w.Accelerator.ValueString()) || (hasTopo && topo != w.Topology.ValueString()) {
		return mismatch("its node labels", orNone(accel), orNone(topo))
	}
	pool, ok := labels[wellknown.NodePoolLabel]
	if !ok || m.Cluster.IsNull() || (hasAccel && hasTopo) {
		return nil
	}
	if np, found := r.findJobPool(ctx, m, pool); found {
		if mt, known := catalog.Lookup(np.GetConfig().GetMachineType()); known &&
			(mt.Accelerator != w.Accelerator.ValueString() || gke.PoolTopology(np) != w.Topology.ValueString()) {
			return mismatch("node pool "+pool+", "+np.GetConfig().GetMachineType(), mt.Accelerator, gke.PoolTopology(np))
		}
	}
	return nil
}

// gpuPlacement is checkPlacement for GPU workers, on the flavor's labels: a flavor naming another GPU type admits
// workers no node of it can run.
func gpuPlacement(flavor string, labels map[string]string, g *gpuWorkersModel) error {
	if a, ok := labels[wellknown.GPUAcceleratorLabel]; ok && a != g.Accelerator.ValueString() {
		return fmt.Errorf("Kueue admitted the GPU workers on flavor %s, whose nodes have %s GPUs, but the workers ask for %s: no node can "+
			"ever run them. Wire each flavor's node_labels from its pool pair (on_demand.node_labels, flex_start.node_labels), which carry "+
			"the GPU type, and submit the job again", flavor, a, g.Accelerator.ValueString())
	}
	return nil
}

// findJobPool reads a node pool of the job's cluster from GKE; found is false when it cannot be read.
func (r *rayJobResource) findJobPool(ctx context.Context, m *rayJobModel, pool string) (*containerpb.NodePool, bool) {
	ref, err := clusterscope.Resolve(m.Cluster.ValueString(), m.Project.ValueString(), m.Location.ValueString(), r.clients)
	if err != nil {
		return nil, false
	}
	client, err := r.clients.GKE(ctx)
	if err != nil {
		return nil, false
	}
	np, err := gke.Read(ctx, client, func(ctx context.Context) (*containerpb.NodePool, error) {
		return client.API().GetNodePool(ctx, &containerpb.GetNodePoolRequest{Name: ref.String() + "/nodePools/" + pool})
	})
	return np, err == nil
}

// deleteFilesConfigMap deletes a job's files unless another RayJob mounts them: the tutorial's two jobs share one
// ConfigMap, and destroying one must not take the other's script away.
func deleteFilesConfigMap(ctx context.Context, c *kube.Clients, ns, cm, job string) error {
	others, err := configMapUsers(ctx, c, ns, cm, job)
	if err != nil {
		return err
	}
	if len(others) > 0 {
		tflog.Info(ctx, "keeping the files' ConfigMap, which other RayJobs mount", map[string]any{"configMap": ns + "/" + cm, "rayJobs": others})
		return nil
	}
	cms := c.Core.ConfigMaps(ns)
	return kube.DeleteAndWait(ctx, func(ctx context.Context) error { return cms.Delete(ctx, cm, metav1.DeleteOptions{}) },
		func(ctx context.Context) error { _, err := cms.Get(ctx, cm, metav1.GetOptions{}); return err }, time.Minute)
}

// refuseSharedFilesChange fails when the files' ConfigMap exists with other files, or was made immutable with other
// files, and other RayJobs mount it: writing ours would change their script under them, or cannot be done.
func refuseSharedFilesChange(ctx context.Context, c *kube.Clients, cm *corev1.ConfigMap, job string) error {
	live, err := c.Core.ConfigMaps(cm.Namespace).Get(ctx, cm.Name, metav1.GetOptions{})
	if err != nil || keepsFiles(live, cm) || (maps.Equal(live.Data, cm.Data) && !isImmutable(live)) {
		return nil //nolint:nilerr // absent, or unreadable: the write that follows reports that
	}
	others, err := configMapUsers(ctx, c, cm.Namespace, cm.Name, job)
	if err != nil || len(others) == 0 {
		return err
	}
	if isImmutable(live) {
		return fmt.Errorf("ConfigMap %s/%s was made immutable and holds other files than this job's, and RayJob %s mounts it, so it "+
			"cannot be written. Delete it once those jobs are done, or give this job its own files_config_map", cm.Namespace, cm.Name, strings.Join(others, ", "))
	}
	return fmt.Errorf("ConfigMap %s/%s holds other files, and RayJob %s mounts it; writing this job's files would change theirs. "+
		"Give this job its own files_config_map, or the same files", cm.Namespace, cm.Name, strings.Join(others, ", "))
}

// keepsFiles says whether live is immutable and holds exactly want's files: it cannot be written, and need not be.
func keepsFiles(live, want *corev1.ConfigMap) bool {
	return isImmutable(live) && maps.Equal(live.Data, want.Data) && len(live.BinaryData) == 0
}

func isImmutable(cm *corev1.ConfigMap) bool { return cm.Immutable != nil && *cm.Immutable }

// configMapUsers names the RayJobs of ns, other than except and those being deleted, that mount ConfigMap cm.
func configMapUsers(ctx context.Context, c *kube.Clients, ns, cm, except string) ([]string, error) {
	var list *rayv1.RayJobList
	err := kube.Retry(ctx, func() (err error) { list, err = c.Ray.RayV1().RayJobs(ns).List(ctx, metav1.ListOptions{}); return err })
	if err != nil {
		return nil, rayJobError(c, err)
	}
	var out []string
	for i := range list.Items {
		j := &list.Items[i]
		if j.Name == except || j.DeletionTimestamp != nil || j.Spec.RayClusterSpec == nil {
			continue
		}
		specs := []corev1.PodSpec{j.Spec.RayClusterSpec.HeadGroupSpec.Template.Spec}
		for _, g := range j.Spec.RayClusterSpec.WorkerGroupSpecs {
			specs = append(specs, g.Template.Spec)
		}
		if mountsConfigMap(specs, cm) {
			out = append(out, j.Name)
		}
	}
	return out, nil
}

func mountsConfigMap(specs []corev1.PodSpec, cm string) bool {
	for _, s := range specs {
		for _, v := range s.Volumes {
			if v.ConfigMap != nil && v.ConfigMap.Name == cm {
				return true
			}
		}
	}
	return false
}

// applyConfigMap creates the files' ConfigMap, or updates the one there; created says which.
func applyConfigMap(ctx context.Context, c *kube.Clients, cm *corev1.ConfigMap) (written *corev1.ConfigMap, created bool, err error) {
	cms := c.Core.ConfigMaps(cm.Namespace)
	written, err = cms.Create(ctx, cm, metav1.CreateOptions{FieldManager: kube.FieldManager})
	if apierrors.IsAlreadyExists(err) {
		if live, gerr := cms.Get(ctx, cm.Name, metav1.GetOptions{}); gerr == nil && keepsFiles(live, cm) {
			return live, false, nil // immutable, with these very files: the job runs them as they are
		}
		written, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: kube.FieldManager})
		return written, false, err
	}
	return written, err == nil, err
}

// refusedOutright reports an API error that says for certain the write did not happen: a 4xx refusal, not a passing
// or unknown failure after which the object may exist.
func refusedOutright(err error) bool {
	if kube.Transient(err) {
		return false
	}
	switch apierrors.ReasonForError(err) {
	case metav1.StatusReasonUnknown, metav1.StatusReasonTimeout, metav1.StatusReasonServerTimeout, metav1.StatusReasonInternalError:
		return false
	}
	return true
}

// filesConfigMapName is the name of the ConfigMap the job mounts as its files, or "".
func filesConfigMapName(job *rayv1.RayJob) string {
	if job.Spec.RayClusterSpec == nil {
		return ""
	}
	for _, v := range job.Spec.RayClusterSpec.HeadGroupSpec.Template.Spec.Volumes {
		if v.Name == filesVolume && v.ConfigMap != nil {
			return v.ConfigMap.Name
		}
	}
	return ""
}

// rayJobError names the missing piece when KubeRay is not installed.
func rayJobError(c *kube.Clients, err error) error {
	if kube.WebhookDenied(err) {
		return fmt.Errorf("an admission webhook on %s (Kueue's or KubeRay's) refused the job as invalid; the message says what to change: %w", c.Host, err)
	}
	if hint := kube.CredentialsHint(c.Host, err); hint != nil {
		return hint
	}
	if apierrors.IsNotFound(err) && strings.Contains(err.Error(), "the server could not find the requested resource") {
		return fmt.Errorf("the cluster %s does not serve KubeRay's ray.io/v1 RayJob: enable GKE's RayOperator add-on (dwsfallback_cluster) or install KubeRay: %w", c.Host, err)
	}
	return err
}

// waitWorkloadsGone waits until Kueue has removed the Workloads of the job with uid. The garbage collector deletes them
// with the job, but a Workload keeps Kueue's finalizer until Kueue lets it go: on a MultiKueue manager, after the
// copies on the workers are removed, which waits for a worker that was lost to answer again. Until then it holds
// its ClusterQueue's quota, and a queue destroyed next would be refused.
func waitWorkloadsGone(ctx context.Context, c *kube.Clients, ns, uid string) error {
	if uid == "" {
		return nil
	}
	var left []kueue.Workload
	ofJob := metav1.ListOptions{LabelSelector: wellknown.JobUIDLabel + "=" + uid}
	// Woken by the Workloads' own events: a poll a second cost each destroy most of a second after Kueue let go.
	err := kube.WaitUntil(ctx, func(ctx context.Context) (bool, error) {
		list, err := c.Kueue.KueueV1beta2().Workloads(ns).List(ctx, ofJob)
		if kube.APIMissing(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		left = list.Items
		return len(left) == 0, nil
	}, func(ctx context.Context) (watch.Interface, error) {
		return c.Kueue.KueueV1beta2().Workloads(ns).Watch(ctx, ofJob)
	})
	if err == nil {
		return nil
	}
	if len(left) == 0 {
		return fmt.Errorf("the RayJob is gone; listing its Workloads on %s to see that Kueue let them go: %w", c.Host, err)
	}
	return fmt.Errorf("the RayJob is gone, but %w", workloadsHeld(left, c.Host))
}

// orphanedWorkloadOwner is the UID of the RayJob named name whose Workloads outlive it, "" when none does.
func orphanedWorkloadOwner(ctx context.Context, c *kube.Clients, ns, name string) (string, error) {
	list, err := c.Kueue.KueueV1beta2().Workloads(ns).List(ctx, metav1.ListOptions{LabelSelector: wellknown.JobUIDLabel})
	if kube.APIMissing(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	for _, wl := range list.Items {
		for _, o := range wl.OwnerReferences {
			if o.Kind == "RayJob" && o.Name == name {
				return string(o.UID), nil
			}
		}
	}
	return "", nil
}

// heldWorkloads explains, when the job's Workloads are still there, that Kueue holds them; nil otherwise.
func heldWorkloads(ctx context.Context, c *kube.Clients, ns, uid string) error {
	if uid == "" {
		return nil
	}
	list, err := c.Kueue.KueueV1beta2().Workloads(ns).List(ctx, metav1.ListOptions{LabelSelector: wellknown.JobUIDLabel + "=" + uid})
	if err != nil {
		return nil //nolint:nilerr // an explanation only: the delete's own error is reported
	}
	if len(list.Items) == 0 {
		return nil
	}
	return workloadsHeld(list.Items, c.Host)
}

func workloadsHeld(wls []kueue.Workload, host string) error {
	var held []string
	for _, wl := range wls {
		held = append(held, fmt.Sprintf("%s (finalizers %v, on worker %q)", wl.Name, wl.Finalizers, kptr.Deref(wl.Status.ClusterName, "")))
	}
	return fmt.Errorf("the job's Workload %s on %s is still held by Kueue: it removes a MultiKueue job's copies on the workers first, "+
		"and waits for a worker that does not answer. Its quota stays in use until then; apply again once the worker answers", strings.Join(held, ", "), host)
}

// waitWorkloadGone waits, for up to a minute, until the Workload named name, of the RayJob named job, is gone; ""
// names none, and a Workload of another owner is not waited for.
func waitWorkloadGone(ctx context.Context, c *kube.Clients, ns, name, job string) error {
	if name == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		wl, err := c.Kueue.KueueV1beta2().Workloads(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || kube.APIMissing(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		return !slices.ContainsFunc(wl.OwnerReferences, func(o metav1.OwnerReference) bool { return o.Kind == "RayJob" && o.Name == job }), nil
	})
}
