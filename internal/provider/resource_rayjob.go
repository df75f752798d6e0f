package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

var (
	_ resource.ResourceWithConfigure      = (*rayJobResource)(nil)
	_ resource.ResourceWithImportState    = (*rayJobResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*rayJobResource)(nil)
	_ resource.ResourceWithValidateConfig = (*rayJobResource)(nil)
)

// A DWS request can wait for capacity a long time; the default covers admission on a busy queue, not days.
const (
	defaultRayJobCreateTimeout = 30 * time.Minute
	defaultRayJobDeleteTimeout = 10 * time.Minute
)

func NewRayJobResource() resource.Resource { return &rayJobResource{} }

type rayJobResource struct {
	clients clients
}

func (r *rayJobResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_rayjob"
}

func (r *rayJobResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = providerClients(req.ProviderData, &resp.Diagnostics)
}

func (r *rayJobResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan rayJobModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultRayJobCreateTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, ok := r.kube(ctx, plan.Cluster, plan.Project, plan.Location, &resp.Diagnostics)
	if !ok {
		return
	}
	job, err := expandRayJob(&plan)
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("building RayJob (%s)", plan.Name.ValueString()), err.Error())
		return
	}
	job.Annotations = withSpecHash(job)
	setUnknownStatus(&plan)
	if cm := expandFilesConfigMap(&plan); cm != nil {
		if err := refuseSharedFilesChange(ctx, c, cm, job.Name); err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("creating ConfigMap (%s/%s) of RayJob files", cm.Namespace, cm.Name), err.Error())
			return
		}
		if err := kube.Retry(ctx, func() error { return applyConfigMap(ctx, c, cm) }); err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("creating ConfigMap (%s/%s) of RayJob files", cm.Namespace, cm.Name), err.Error())
			return
		}
	}
	// In state before the job exists: a failure from here on leaves state that names the ConfigMap and the job.
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	err = kube.Retry(ctx, func() error {
		_, err := c.Ray.RayV1().RayJobs(job.Namespace).Create(ctx, job, metav1.CreateOptions{FieldManager: kube.FieldManager})
		return err
	})
	if err != nil {
		if !apierrors.IsAlreadyExists(err) {
			// Refused outright (a webhook, RBAC, a missing CRD): no job exists, so none goes into state, and the
			// files' ConfigMap goes too unless another job mounts it.
			resp.Diagnostics.AddError(fmt.Sprintf("creating RayJob (%s/%s)", job.Namespace, job.Name), rayJobError(c, err).Error())
			resp.State.RemoveResource(ctx)
			if cm := expandFilesConfigMap(&plan); cm != nil {
				if derr := deleteFilesConfigMap(ctx, c, job.Namespace, cm.Name, job.Name); derr != nil {
					resp.Diagnostics.AddWarning("ConfigMap of RayJob files left behind", derr.Error())
				}
			}
			return
		}
		// Left by an interrupted apply? Adopt it only if it is this very job.
		live, gerr := c.Ray.RayV1().RayJobs(job.Namespace).Get(ctx, job.Name, metav1.GetOptions{})
		if gerr != nil || live.Annotations[specHashAnnotation] != job.Annotations[specHashAnnotation] {
			resp.Diagnostics.AddError(fmt.Sprintf("creating RayJob (%s/%s)", job.Namespace, job.Name),
				"A RayJob of that name already exists and is not this configuration's; import it, delete it, or choose another name.")
			return
		}
		tflog.Info(ctx, "adopting the RayJob an earlier apply submitted", map[string]any{"rayjob": job.Namespace + "/" + job.Name})
	}
	p, err := waitJob(ctx, c, job.Namespace, job.Name, plan.WaitFor.ValueString(), func(ctx context.Context, p jobProgress) error {
		return r.checkPlacement(ctx, c, &plan, p)
	})
	if p.job != nil {
		flattenJobStatus(&plan, p)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("waiting for RayJob (%s/%s)", job.Namespace, job.Name), err.Error())
	}
}

func (r *rayJobResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var st rayJobModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := kubeForRead(ctx, r.clients, st.Cluster, st.Project, st.Location, resp)
	if !ok {
		return
	}
	ns, name := st.Namespace.ValueString(), st.Name.ValueString()
	p, err := readProgress(ctx, c, ns, name)
	if jobGone(err) {
		finished := st.JobDeploymentStatus.ValueString() == string(rayv1.JobDeploymentStatusComplete) ||
			st.JobDeploymentStatus.ValueString() == string(rayv1.JobDeploymentStatusFailed)
		if finished && !st.ResubmitWhenDeleted.ValueBool() {
			// A finished run whose job was cleaned up stays finished: no resubmission.
			return
		}
		resp.Diagnostics.AddWarning("RayJob not found", fmt.Sprintf("RayJob %s/%s no longer exists before it finished; it will be submitted again.", ns, name))
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading RayJob (%s/%s)", ns, name), rayJobError(c, err).Error())
		return
	}
	importing, diags := req.Private.GetKey(ctx, privateDiscover)
	resp.Diagnostics.Append(diags...)
	if len(importing) > 0 || len(st.Files.Elements()) > 0 {
		cm, err := filesConfigMap(ctx, c, p.job)
		if err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("reading the files of RayJob (%s/%s)", ns, name), err.Error())
			return
		}
		if len(importing) > 0 {
			flattenRayJobSpec(&st, p.job, cm)
			resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateDiscover, nil)...)
		} else if cm == nil || !sameData(cm.Data, stringMap(st.Files)) {
			// The script changed or vanished under the job: the plan submits a new run with the configured files.
			st.Files = types.MapNull(types.StringType)
			if cm != nil {
				st.Files = mapValue(cm.Data)
			}
		}
	}
	flattenJobStatus(&st, p)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

// Update only ever sees wait_for, resubmit_when_deleted and timeouts change: everything else replaces the job.
func (r *rayJobResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan rayJobModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := r.kube(ctx, plan.Cluster, plan.Project, plan.Location, &resp.Diagnostics)
	if !ok {
		return
	}
	p, err := readProgress(ctx, c, plan.Namespace.ValueString(), plan.Name.ValueString())
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading RayJob (%s/%s)", plan.Namespace.ValueString(), plan.Name.ValueString()), rayJobError(c, err).Error())
		return
	}
	flattenJobStatus(&plan, p)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *rayJobResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var st rayJobModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := st.Timeouts.Delete(ctx, defaultRayJobDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, ok := r.kube(ctx, st.Cluster, st.Project, st.Location, &resp.Diagnostics)
	if !ok {
		return
	}
	ns, name := st.Namespace.ValueString(), st.Name.ValueString()
	jobs := c.Ray.RayV1().RayJobs(ns)
	// Background propagation: the garbage collector removes the RayCluster and Kueue's Workload after the job.
	if err := deleteAndWait(ctx, func(ctx context.Context) error { return jobs.Delete(ctx, name, metav1.DeleteOptions{}) },
		func(ctx context.Context) error { _, err := jobs.Get(ctx, name, metav1.GetOptions{}); return err }, 5*time.Minute); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting RayJob (%s/%s)", ns, name), rayJobError(c, err).Error())
		return
	}
	if cm := st.FilesConfigMap.ValueString(); cm != "" && (len(st.Files.Elements()) > 0 || !st.FilesConfigMap.IsNull()) {
		if err := deleteFilesConfigMap(ctx, c, ns, cm, name); err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("deleting ConfigMap (%s/%s) of RayJob files", ns, cm), err.Error())
		}
	}
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
	return deleteAndWait(ctx, func(ctx context.Context) error { return cms.Delete(ctx, cm, metav1.DeleteOptions{}) },
		func(ctx context.Context) error { _, err := cms.Get(ctx, cm, metav1.GetOptions{}); return err }, time.Minute)
}

// refuseSharedFilesChange fails when the files' ConfigMap exists with other files and other RayJobs mount it:
// writing ours would change their script under them.
func refuseSharedFilesChange(ctx context.Context, c *kube.Clients, cm *corev1.ConfigMap, job string) error {
	live, err := c.Core.ConfigMaps(cm.Namespace).Get(ctx, cm.Name, metav1.GetOptions{})
	if err != nil || sameData(live.Data, cm.Data) {
		return nil // absent, or unreadable (the write reports that)
	}
	others, err := configMapUsers(ctx, c, cm.Namespace, cm.Name, job)
	if err != nil || len(others) == 0 {
		return err
	}
	return fmt.Errorf("ConfigMap %s/%s holds other files, and RayJob %s mounts it; writing this job's files would change theirs. "+
		"Give this job its own files_config_map, or the same files", cm.Namespace, cm.Name, strings.Join(others, ", "))
}

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

func (r *rayJobResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	st := rayJobModel{Timeouts: rayJobTimeoutsNull(), WaitFor: types.StringValue("admitted"), ResubmitWhenDeleted: types.BoolValue(false),
		Files: types.MapNull(types.StringType), Env: types.MapNull(types.StringType), Labels: types.MapNull(types.StringType),
		Annotations: types.MapNull(types.StringType), AdmissionChecks: types.MapNull(types.StringType),
		FilesMountPath: types.StringValue(defaultFilesMountPath), Cluster: types.StringNull(), Project: types.StringNull(), Location: types.StringNull()}
	id := req.ID
	form := "projects/P/locations/L/clusters/C/namespaces/NS/rayJobs/NAME, or NS/NAME with a provider kubernetes block"
	var rest string
	var err error
	st.Cluster, st.Project, st.Location, rest, err = scopedImport(id, "/namespaces/", "NS/rayJobs/NAME", r.clients)
	if err != nil {
		resp.Diagnostics.AddError("importing RayJob", err.Error())
		return
	}
	parts := strings.Split(rest, "/")
	switch {
	case !st.Cluster.IsNull() && len(parts) == 3 && parts[1] == "rayJobs":
		st.Namespace, st.Name = types.StringValue(parts[0]), types.StringValue(parts[2])
	case st.Cluster.IsNull() && len(parts) == 2:
		st.Namespace, st.Name = types.StringValue(parts[0]), types.StringValue(parts[1])
	default:
		resp.Diagnostics.AddError("importing RayJob", fmt.Sprintf("id %q must be %s", id, form))
		return
	}
	st.ID = types.StringValue(id)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateDiscover, []byte(`true`))...)
}

func (r *rayJobResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m rayJobModel
	_, diags := knownConfig(ctx, req.Config, &m)
	resp.Diagnostics.Append(diags...)
	if !resp.Diagnostics.HasError() {
		validateRayJob(&m, &resp.Diagnostics)
	}
}

// validateRayJob checks, on the values known so far (unknown ones read as null), what would make the job refused or
// never placed.
func validateRayJob(m *rayJobModel, diags *diag.Diagnostics) {
	known := func(v interface{ IsNull() bool }) bool { return !v.IsNull() }
	if !m.Queue.IsNull() && known(m.Elastic) && !m.Elastic.ValueBool() && known(m.EnableInTreeAutoscaling) && m.EnableInTreeAutoscaling.ValueBool() {
		diags.AddAttributeError(path.Root("enable_in_tree_autoscaling"), "Kueue refuses autoscaling on this job",
			"Kueue's webhook refuses a job it manages that uses Ray's autoscaler unless the job is elastic (\"a kueue managed job should only "+
				"use autoscaling when workload slicing is enabled\"). Set elastic = true (with Kueue's ElasticJobsViaWorkloadSlices gate, as in the "+
				"tutorial), or enable_in_tree_autoscaling = false.")
	}
	if !m.Queue.IsNull() && known(m.ShutdownAfterJobFinishes) && !m.ShutdownAfterJobFinishes.ValueBool() {
		diags.AddAttributeError(path.Root("shutdown_after_job_finishes"), "Kueue refuses jobs that keep their cluster",
			"Kueue's webhook refuses a job it manages that keeps its Ray cluster after finishing (\"a kueue managed job should delete the "+
				"cluster after finishing\"): the cluster would hold the TPU quota forever. Leave shutdown_after_job_finishes true, or drop queue.")
	}
	for k := range m.Files.Elements() {
		if strings.ContainsAny(k, "/\\") || k == "" || k == "." || k == ".." {
			diags.AddAttributeError(path.Root("files").AtMapKey(k), "Invalid file name",
				fmt.Sprintf("%q cannot be a ConfigMap key: use a plain file name such as train.py (letters, digits, '-', '_', '.').", k))
		}
	}
	w := m.TPUWorkers
	if w == nil {
		return
	}
	p := path.Root("tpu_workers")
	if known(w.Topology) && known(w.ChipsPerNode) {
		if _, err := numOfHosts(w.Topology.ValueString(), w.ChipsPerNode.ValueInt64()); err != nil {
			diags.AddAttributeError(p.AtName("topology"), "Topology does not fit the nodes",
				fmt.Sprintf("%v. Use the pool pair's chips_per_node and tpu_topology, which always fit.", err))
		} else if msg := checkAccelerator(w.Accelerator, w.ChipsPerNode, w.Topology); msg != "" {
			diags.AddAttributeError(p.AtName("accelerator"), "No TPU nodes fit these workers", msg)
		}
	}
	if known(w.MinReplicas) && known(w.MaxReplicas) && w.MinReplicas.ValueInt64() > w.MaxReplicas.ValueInt64() {
		diags.AddAttributeError(p.AtName("min_replicas"), "min_replicas above max_replicas",
			fmt.Sprintf("min_replicas (%d) must not exceed max_replicas (%d).", w.MinReplicas.ValueInt64(), w.MaxReplicas.ValueInt64()))
	}
	if known(w.Replicas) && known(w.MaxReplicas) && w.Replicas.ValueInt64() > w.MaxReplicas.ValueInt64() {
		diags.AddAttributeError(p.AtName("replicas"), "replicas above max_replicas",
			fmt.Sprintf("replicas (%d) must lie between min_replicas and max_replicas (%d).", w.Replicas.ValueInt64(), w.MaxReplicas.ValueInt64()))
	}
}

// ModifyPlan resolves the cluster and the id, names the files' ConfigMap, works out the hosts per slice and the
// autoscaling default, at plan time, and checks again what became known since validation. It sets single attributes,
// so that values still unknown stay unknown.
func (r *rayJobResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	var m rayJobModel
	u, diags := knownPlan(ctx, req.Plan, &m)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	suffix, kubeID := "", ""
	if !u.at("name") && !u.at("namespace") {
		suffix = "namespaces/" + m.Namespace.ValueString() + "/rayJobs/" + m.Name.ValueString()
		kubeID = m.Namespace.ValueString() + "/" + m.Name.ValueString()
	}
	planClusterScope(ctx, r.clients, req, resp, suffix, kubeID)
	set := func(name string, v attr.Value) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), v)...)
	}
	if w := m.TPUWorkers; w != nil && !w.Topology.IsNull() && !w.ChipsPerNode.IsNull() {
		if n, err := numOfHosts(w.Topology.ValueString(), w.ChipsPerNode.ValueInt64()); err == nil {
			set("num_of_hosts", types.Int64Value(int64(n)))
		}
	}
	if u.at("files_config_map") && !u.at("name") {
		set("files_config_map", types.StringValue(m.Name.ValueString()+"-files"))
	}
	if u.at("enable_in_tree_autoscaling") && !u.at("queue") && !u.at("elastic") {
		m.EnableInTreeAutoscaling = types.BoolValue(m.Queue.IsNull() || m.Elastic.ValueBool())
		set("enable_in_tree_autoscaling", m.EnableInTreeAutoscaling)
	}
	validateRayJob(&m, &resp.Diagnostics)
}

func (r *rayJobResource) kube(ctx context.Context, cluster, project, location types.String, diags *diag.Diagnostics) (*kube.Clients, bool) {
	return kubeFor(ctx, r.clients, cluster, project, location, diags)
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

func applyConfigMap(ctx context.Context, c *kube.Clients, cm *corev1.ConfigMap) error {
	cms := c.Core.ConfigMaps(cm.Namespace)
	_, err := cms.Create(ctx, cm, metav1.CreateOptions{FieldManager: kube.FieldManager})
	if apierrors.IsAlreadyExists(err) {
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: kube.FieldManager})
	}
	return err
}

// filesConfigMap is the ConfigMap the job mounts as its files, or nil.
func filesConfigMap(ctx context.Context, c *kube.Clients, job *rayv1.RayJob) (*corev1.ConfigMap, error) {
	if job.Spec.RayClusterSpec == nil {
		return nil, nil
	}
	for _, v := range job.Spec.RayClusterSpec.HeadGroupSpec.Template.Spec.Volumes {
		if v.Name == filesVolume && v.ConfigMap != nil {
			cm, err := c.Core.ConfigMaps(job.Namespace).Get(ctx, v.ConfigMap.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil, nil
			}
			return cm, err
		}
	}
	return nil, nil
}

func sameData(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func setUnknownStatus(m *rayJobModel) {
	m.WorkloadName, m.AdmittedFlavor, m.JobStatus, m.JobDeploymentStatus = types.StringValue(""), types.StringValue(""), types.StringValue(""), types.StringValue("")
	m.RayClusterName, m.DashboardURL, m.StartTime, m.EndTime, m.Message = types.StringValue(""), types.StringValue(""), types.StringValue(""), types.StringValue(""), types.StringValue("")
	m.Admitted, m.AdmissionChecks = types.BoolValue(false), types.MapValueMust(types.StringType, nil)
}

// rayJobError names the missing piece when KubeRay is not installed.
func rayJobError(c *kube.Clients, err error) error {
	if kube.WebhookDenied(err) {
		return fmt.Errorf("an admission webhook on %s (Kueue's or KubeRay's) refused the job as invalid; the message says what to change: %w", c.Host, err)
	}
	if hint := credentialsHint(c, err); hint != nil {
		return hint
	}
	if apierrors.IsNotFound(err) && strings.Contains(err.Error(), "the server could not find the requested resource") {
		return fmt.Errorf("the cluster %s does not serve KubeRay's ray.io/v1 RayJob: enable GKE's RayOperator add-on (dwsfallback_cluster) or install KubeRay: %w", c.Host, err)
	}
	return err
}

// checkAccelerator says why no GKE TPU node could run workers asking for this accelerator, chips per node and
// topology (such a job would stay pending forever), or "" when one can.
func checkAccelerator(accel types.String, chips types.Int64, topology types.String) string {
	if accel.IsNull() || accel.IsUnknown() {
		return ""
	}
	a := accel.ValueString()
	if !slices.Contains(catalog.Accelerators(), a) {
		return fmt.Sprintf("%q is not a TPU accelerator GKE labels nodes with. Use one of: %s (the pool pair's accelerator attribute).",
			a, strings.Join(catalog.Accelerators(), ", "))
	}
	m, ok := catalog.MachineTypeFor(a, int(chips.ValueInt64()))
	if !ok {
		return fmt.Sprintf("No %s machine type has %d chips per node. Use the pool pair's chips_per_node.", a, chips.ValueInt64())
	}
	if _, err := catalog.NewSlice(m.Name, topology.ValueString()); err != nil {
		return fmt.Sprintf("%v. Use the pool pair's tpu_topology.", err)
	}
	return ""
}

// checkPlacement fails when Kueue admitted the TPU workers on a flavor whose nodes cannot run them: its node labels, or
// the node pool they name (read from GKE), have another TPU accelerator or topology. Kueue compares only the label keys
// a flavor lists, so a flavor bound by its pool label alone admits jobs of every TPU generation, and such a job would
// report admitted and then pend forever.
func (r *rayJobResource) checkPlacement(ctx context.Context, c *kube.Clients, m *rayJobModel, p jobProgress) error {
	w := m.TPUWorkers
	flavor := tpuAssignment(p.wl)
	if w == nil || flavor == "" {
		return nil
	}
	rf, err := c.Kueue.KueueV1beta2().ResourceFlavors().Get(ctx, flavor, metav1.GetOptions{})
	if err != nil {
		return nil // cannot tell; the admission stands
	}
	want := fmt.Sprintf("%s %s", w.Accelerator.ValueString(), w.Topology.ValueString())
	mismatch := func(where, accel, topo string) error {
		return fmt.Errorf("Kueue admitted the TPU workers on flavor %s, whose nodes (%s) have %s %s, but the workers ask for %s: no node can "+
			"ever run them. Kueue matched them to %s because its node_labels do not name the accelerator and topology; wire each flavor's "+
			"node_labels from its pool pair (on_demand.node_labels, flex_start.node_labels), which carry both, and submit the job again",
			flavor, where, accel, topo, want, flavor)
	}
	labels := rf.Spec.NodeLabels
	accel, hasAccel := labels[tpuAcceleratorLabel]
	topo, hasTopo := labels[tpuTopologyLabel]
	if (hasAccel && accel != w.Accelerator.ValueString()) || (hasTopo && topo != w.Topology.ValueString()) {
		return mismatch("its node labels", orNone(accel), orNone(topo))
	}
	pool, ok := labels["cloud.google.com/gke-nodepool"]
	if !ok || m.Cluster.IsNull() || (hasAccel && hasTopo) {
		return nil
	}
	ref, err := resolveCluster(m.Cluster.ValueString(), m.Project.ValueString(), m.Location.ValueString(), r.clients)
	if err != nil {
		return nil
	}
	client, err := r.clients.GKE(ctx)
	if err != nil {
		return nil
	}
	np, err := gke.Read(ctx, client, func(ctx context.Context) (*containerpb.NodePool, error) {
		return client.API().GetNodePool(ctx, &containerpb.GetNodePoolRequest{Name: ref.String() + "/nodePools/" + pool})
	})
	if err != nil {
		return nil
	}
	mt, known := catalog.Lookup(np.GetConfig().GetMachineType())
	if !known {
		return nil
	}
	if mt.Accelerator != w.Accelerator.ValueString() || np.GetPlacementPolicy().GetTpuTopology() != w.Topology.ValueString() {
		return mismatch("node pool "+pool+", "+np.GetConfig().GetMachineType(), mt.Accelerator, np.GetPlacementPolicy().GetTpuTopology())
	}
	return nil
}
