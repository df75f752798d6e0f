package rayjob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/drift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/identity"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

var (
	_ resource.ResourceWithConfigure      = (*rayJobResource)(nil)
	_ resource.ResourceWithImportState    = (*rayJobResource)(nil)
	_ resource.ResourceWithIdentity       = (*rayJobResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*rayJobResource)(nil)
	_ resource.ResourceWithValidateConfig = (*rayJobResource)(nil)
)

// A DWS request can wait for capacity a long time; the default covers admission on a busy queue, not days.
const (
	defaultRayJobCreateTimeout = 30 * time.Minute
	defaultRayJobDeleteTimeout = 10 * time.Minute
)

// privateImporting marks a freshly imported job, whose configuration Read reads back from the job.
const privateImporting = "importing"

// New is the dwsfallback_rayjob resource.
func New() resource.Resource { return &rayJobResource{} }

type rayJobResource struct {
	clients clusterscope.Clients
}

// rayJobIdentity names the object by the attributes of its id (identity.Spec).
var rayJobIdentity = identity.New("projects/{project}/locations/{location}/clusters/{cluster}/namespaces/{namespace}/rayJobs/{name}", "{namespace}/{name}")

func (r *rayJobResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_rayjob"
}

func (r *rayJobResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = rayJobIdentity.Schema()
}

func (r *rayJobResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = clusterscope.FromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (r *rayJobResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer rayJobIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
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
	setUnknownStatus(&plan.rayJobStatusModel)
	// Someone else's job of this name is neither ours to adopt nor to give our files: refused before anything is
	// written. Ours (left by an interrupted apply) is adopted below.
	if live, err := c.Ray.RayV1().RayJobs(job.Namespace).Get(ctx, job.Name, metav1.GetOptions{}); err == nil {
		switch {
		case live.DeletionTimestamp != nil:
			resp.Diagnostics.AddError(fmt.Sprintf("creating RayJob (%s/%s)", job.Namespace, job.Name),
				fmt.Sprintf("A RayJob of that name is being deleted (since %s); apply again once it is gone.", live.DeletionTimestamp.UTC().Format(time.RFC3339)))
			return
		case live.Annotations[specHashAnnotation] != job.Annotations[specHashAnnotation]:
			resp.Diagnostics.AddError(fmt.Sprintf("creating RayJob (%s/%s)", job.Namespace, job.Name),
				"A RayJob of that name already exists and is not this configuration's; import it, delete it, or choose another name.")
			return
		}
	}
	cmCreated := false
	var cmWritten *corev1.ConfigMap
	if cm := expandFilesConfigMap(&plan); cm != nil {
		if err := refuseSharedFilesChange(ctx, c, cm, job.Name); err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("creating ConfigMap (%s/%s) of RayJob files", cm.Namespace, cm.Name), err.Error())
			return
		}
		if err := kube.Retry(ctx, func() error {
			// Accumulated: a create whose answer was lost is retried as an update, and was still this call's.
			written, created, err := applyConfigMap(ctx, c, cm)
			cmCreated, cmWritten = cmCreated || created, written
			return err
		}); err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("creating ConfigMap (%s/%s) of RayJob files", cm.Namespace, cm.Name), err.Error())
			return
		}
	}
	// In state before the job exists: a failure from here on leaves state that names the ConfigMap and the job.
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	var created *rayv1.RayJob
	err = kube.Retry(ctx, func() error {
		var err error
		created, err = c.Ray.RayV1().RayJobs(job.Namespace).Create(ctx, job, metav1.CreateOptions{FieldManager: kube.FieldManager})
		return err
	})
	jobReads.Forget(c, job.Namespace)
	if err != nil {
		if !apierrors.IsAlreadyExists(err) {
			resp.Diagnostics.AddError(fmt.Sprintf("creating RayJob (%s/%s)", job.Namespace, job.Name), rayJobError(c, err).Error())
			if refusedOutright(err) {
				// A webhook, RBAC or a missing CRD said no: no job exists, so none goes into state, and a ConfigMap
				// this call made goes too unless another job mounts it. After a passing error the job may exist:
				// the state stays (tainted), for the next apply or destroy to account for it.
				resp.State.RemoveResource(ctx)
				if cm := expandFilesConfigMap(&plan); cm != nil && cmCreated {
					if derr := deleteFilesConfigMap(ctx, c, job.Namespace, cm.Name, job.Name); derr != nil {
						resp.Diagnostics.AddWarning("ConfigMap of RayJob files left behind", derr.Error())
					}
				}
			}
			return
		}
		// Left by an interrupted apply? Adopt it only if it is this very job.
		live, gerr := c.Ray.RayV1().RayJobs(job.Namespace).Get(ctx, job.Name, metav1.GetOptions{})
		if gerr != nil || live.Annotations[specHashAnnotation] != job.Annotations[specHashAnnotation] {
			resp.Diagnostics.AddError(fmt.Sprintf("creating RayJob (%s/%s)", job.Namespace, job.Name),
				"A RayJob of that name already exists and is not this configuration's; import it, delete it, or choose another name.")
			resp.State.RemoveResource(ctx) // not ours: a destroy must never delete it
			return
		}
		tflog.Info(ctx, "adopting the RayJob an earlier apply submitted", map[string]any{"rayjob": job.Namespace + "/" + job.Name})
		created = live
	}
	recordRayJobBaseline(ctx, c, created, cmWritten, resp.Private, &resp.Diagnostics)
	p, err := waitJob(ctx, c, job.Namespace, job.Name, plan.WaitFor.ValueString(), func(ctx context.Context, p jobProgress) error {
		return r.checkPlacement(ctx, c, &plan, p)
	})
	if p.job != nil {
		flattenJobStatus(&plan.rayJobStatusModel, p)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	switch {
	case err != nil && p.job != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		// The job is submitted and waits its turn: an error would taint it, and the next apply would delete it and
		// submit it again at the back of the queue (DWS may queue a request for days). It stays, untainted.
		resp.Diagnostics.AddWarning(fmt.Sprintf("RayJob %s/%s still waiting after the create timeout", job.Namespace, job.Name), fmt.Sprintf(
			"The job did not get to %q within timeouts.create (%s); last: %s. It stays submitted and in state, untainted, so it keeps "+
				"its place in Kueue's queue: the next apply neither deletes it nor submits it again, and refresh shows where it "+
				"stands (admitted, admitted_flavor, job_deployment_status). For an apply that waits longer, raise timeouts.create.",
			plan.WaitFor.ValueString(), timeout, p.phase()))
	case err != nil:
		resp.Diagnostics.AddError(fmt.Sprintf("waiting for RayJob (%s/%s)", job.Namespace, job.Name), err.Error())
	}
}

func (r *rayJobResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	// Set first: a Read that finds the object gone must still name it.
	rayJobIdentity.FromState(&req.State, resp.Identity, &resp.Diagnostics)
	var st rayJobModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := clusterscope.KubeForRead(ctx, r.clients, st.Cluster, st.Project, st.Location, resp)
	if !ok {
		return
	}
	ns, name := st.Namespace.ValueString(), st.Name.ValueString()
	p, err := refreshProgress(ctx, c, ns, name, len(st.Files.Elements()) > 0)
	if jobGone(err) {
		finished := st.JobDeploymentStatus.ValueString() == string(rayv1.JobDeploymentStatusComplete) ||
			st.JobDeploymentStatus.ValueString() == string(rayv1.JobDeploymentStatusFailed)
		if finished && !st.ResubmitWhenDeleted.ValueBool() {
			// A finished run whose job was cleaned up stays finished: no resubmission.
			return
		}
		resp.Diagnostics.AddWarning("RayJob not found", fmt.Sprintf("RayJob %s/%s no longer exists before it finished; it will be submitted again.", ns, name))
		// Its Workload outlives it until the garbage collector comes, and Kueue (v0.17) finds a job's Workloads by
		// the job's name: a job submitted again before then is admitted under the old Workload's name, whose
		// annotations then read as drift. Wait for it here, where its name is still known.
		if err := waitWorkloadGone(ctx, c, ns, st.WorkloadName.ValueString(), name); err != nil {
			resp.Diagnostics.AddWarning("Workload of the deleted RayJob still there", fmt.Sprintf("Workload %s/%s of the deleted RayJob %s: %v. "+
				"A job submitted again while it remains may be admitted under its name.", ns, st.WorkloadName.ValueString(), name, err))
		}
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading RayJob (%s/%s)", ns, name), rayJobError(c, err).Error())
		return
	}
	importing, diags := req.Private.GetKey(ctx, privateImporting)
	resp.Diagnostics.Append(diags...)
	if len(importing) > 0 {
		cm, err := jobReads.FilesConfigMap(ctx, c, p.job, filesConfigMapName(p.job))
		if err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("reading the files of RayJob (%s/%s)", ns, name), err.Error())
			return
		}
		tfvalue.TakeChanged(&st, &rayJobModel{}, readJob(p.job))
		st.Files = readFiles(cm)
		st.Drift = tfdrift.List(importDrift(p.job))
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateImporting, nil)...)
		flattenJobStatus(&st.rayJobStatusModel, p)
		resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
		return
	}
	changed, _, err := refreshJob(ctx, c, &st, p)
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading the files of RayJob (%s/%s)", ns, name), err.Error())
		return
	}
	if b := tfdrift.Read(ctx, req.Private, &resp.Diagnostics); len(b) > 0 {
		d, err := rayJobDrift(ctx, c, b, p)
		if err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("reading RayJob (%s/%s)", ns, name), err.Error())
			return
		}
		if !tfdrift.Same(d, st.Drift) {
			st.Drift, changed = tfdrift.List(d), true
		}
	}
	if st.Drift.IsNull() {
		// A state written before drift was kept (0.1.x): an empty list, so that its first plan is not an update.
		st.Drift, changed = tfdrift.List(nil), true
	}
	if changed {
		resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
	} // else resp.State already holds the prior state: writing it again would only convert it once more
}

// refreshJob brings st up to date with the job that is there: every attribute the resource writes (readSpec), its
// files and its status. It tells whether anything changed, and whether the spec did. When the files' ConfigMap
// changed or vanished under the job, files take what it holds, so that the plan submits a new run with the
// configured files.
func refreshJob(ctx context.Context, c *kube.Clients, st *rayJobModel, p jobProgress) (changed, specChanged bool, err error) {
	specChanged = readSpec(st, p.job)
	changed = specChanged
	if len(st.Files.Elements()) > 0 {
		cm, err := jobReads.FilesConfigMap(ctx, c, p.job, filesConfigMapName(p.job))
		if err != nil {
			return false, false, err
		}
		if cm == nil || !maps.Equal(cm.Data, tfvalue.StringMap(st.Files)) {
			st.Files, changed = readFiles(cm), true
		}
	}
	was := st.rayJobStatusModel
	flattenJobStatus(&st.rayJobStatusModel, p)
	return changed || !was.equal(st.rayJobStatusModel), specChanged, nil
}

// ShortcutPlans opts the RayJob into the server's unchanged-plan shortcut: a configuration has many jobs.
func (r *rayJobResource) ShortcutPlans() {}

// IdentityData is the job's identity for the server's fast Read: the one Read sets.
func (r *rayJobResource) IdentityData(id string) (*tfprotov6.ResourceIdentityData, error) {
	return rayJobIdentity.Data(id)
}

// ReadScalars is the server's fast Read (scalarReader): the job's scalar attributes, decoded from the state's value
// without the framework and refreshed as Read does; only a private state of drift baselines alone is known here.
func (r *rayJobResource) ReadScalars(ctx context.Context, providerData any, val tftypes.Value, private []byte) (tftypes.Value, bool, bool) {
	cl, isClients := providerData.(clusterscope.Clients)
	baselines, ok := onlyBaselines(private)
	var st rayJobModel
	if !isClients || !ok || !tfvalue.FillScalars(ctx, val, &st) {
		return val, false, false
	}
	changed, ok := refreshScalars(ctx, cl, &st, baselines)
	if !ok || !changed {
		return val, false, ok
	}
	updated, err := tfvalue.SetScalars(ctx, val, &st)
	if err != nil {
		return val, false, false
	}
	return updated, true, true
}

// onlyBaselines reads a RayJob's private state when it holds nothing but its drift baselines (or nothing at all), in
// the framework's encoding (a JSON object of base64 JSON values); ok is false for anything else (an import's mark),
// which the framework's Read handles.
func onlyBaselines(private []byte) (b map[string]drift.Baseline, ok bool) {
	if len(private) == 0 {
		return nil, true
	}
	var keys map[string][]byte
	if json.Unmarshal(private, &keys) != nil || len(keys) != 1 {
		return nil, false
	}
	raw, found := keys[tfdrift.PrivateKey]
	var all map[string]drift.Baseline
	if !found || json.Unmarshal(raw, &all) != nil {
		return nil, false
	}
	return all, true
}

// refreshScalars is Read for a job that is there and whose spec is as the state says, on a model decoded without the
// framework (all but timeouts): ok is false where Read must run instead (an error, a job or cluster gone, a spec
// changed by hand, whose nested attributes only the framework writes back). The protocol server uses it to answer a
// refresh without the framework's decode and walk of the whole state (server.go).
func refreshScalars(ctx context.Context, cl clusterscope.Clients, st *rayJobModel, baselines map[string]drift.Baseline) (changed, ok bool) {
	var diags diag.Diagnostics
	c, ok := clusterscope.ConnectKube(ctx, cl, st.Cluster, st.Project, st.Location, &diags, func(clusterscope.Ref) {})
	if !ok {
		return false, false
	}
	if len(baselines) > 0 {
		warmJobDrift(ctx, c)
	}
	p, err := refreshProgress(ctx, c, st.Namespace.ValueString(), st.Name.ValueString(), len(st.Files.Elements()) > 0)
	if err != nil {
		return false, false
	}
	changed, spec, err := refreshJob(ctx, c, st, p)
	if err != nil || spec || st.Drift.IsNull() {
		return false, false
	}
	if len(baselines) > 0 {
		// Drift, found or gone, is a change of a list attribute: the framework's Read writes it.
		d, err := rayJobDrift(ctx, c, baselines, p)
		if err != nil || !tfdrift.Same(d, st.Drift) {
			return false, false
		}
	}
	return changed, true
}

// Update only ever sees wait_for, resubmit_when_deleted and timeouts change: everything else replaces the job.
func (r *rayJobResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer rayJobIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
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
	flattenJobStatus(&plan.rayJobStatusModel, p)
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
	defer jobReads.Forget(c, ns)
	jobs := c.Ray.RayV1().RayJobs(ns)
	var uid string
	have, err := jobs.Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil:
		uid = string(have.UID)
	case apierrors.IsNotFound(err):
		// Gone already, perhaps by an earlier destroy that failed waiting for its Workloads: wait for those.
		if uid, err = orphanedWorkloadOwner(ctx, c, ns, name); err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("deleting RayJob (%s/%s)", ns, name), rayJobError(c, err).Error())
			return
		}
	default:
		resp.Diagnostics.AddError(fmt.Sprintf("deleting RayJob (%s/%s)", ns, name), rayJobError(c, err).Error())
		return
	}
	// Background propagation, then a wait for the job's Workloads: its quota is free when destroy returns (a job
	// applied next is admitted where this one was). Foreground propagation held the job itself until every
	// dependent went, and Kueue's handover of a ProvisioningRequest's PodTemplates (from the Workload to the
	// request) fights the garbage collector's foreground deletion for tens of seconds when a job is deleted while
	// DWS is being asked.
	background := metav1.DeletePropagationBackground
	if err := kube.DeleteAndWait(ctx, func(ctx context.Context) error {
		return jobs.Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &background})
	},
		func(ctx context.Context) error { _, err := jobs.Get(ctx, name, metav1.GetOptions{}); return err }, 5*time.Minute); err != nil {
		// KubeRay's finalizer holds the job; say which Workloads are still there too.
		resp.Diagnostics.AddError(fmt.Sprintf("deleting RayJob (%s/%s)", ns, name), errors.Join(rayJobError(c, err), heldWorkloads(ctx, c, ns, uid)).Error())
		return
	}
	if err := waitWorkloadsGone(ctx, c, ns, uid); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting RayJob (%s/%s)", ns, name), err.Error())
		return
	}
	if cm := st.FilesConfigMap.ValueString(); cm != "" && (len(st.Files.Elements()) > 0 || !st.FilesConfigMap.IsNull()) {
		if err := deleteFilesConfigMap(ctx, c, ns, cm, name); err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("deleting ConfigMap (%s/%s) of RayJob files", ns, cm), err.Error())
		}
	}
}

func (r *rayJobResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importID, diags := rayJobIdentity.ImportID(ctx, req)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	defer rayJobIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	st := rayJobModel{Timeouts: rayJobTimeoutsNull(), WaitFor: types.StringValue("admitted"), ResubmitWhenDeleted: types.BoolValue(false),
		Files: types.MapNull(types.StringType), Env: types.MapNull(types.StringType), Labels: types.MapNull(types.StringType),
		Annotations: types.MapNull(types.StringType), rayJobStatusModel: rayJobStatusModel{AdmissionChecks: types.MapNull(types.StringType), NodesByPool: types.MapNull(types.Int64Type)},
		FilesMountPath: types.StringValue(defaultFilesMountPath), Cluster: types.StringNull(), Project: types.StringNull(), Location: types.StringNull(),
		Drift: types.ListNull(types.StringType)}
	id := importID
	form := "projects/P/locations/L/clusters/C/namespaces/NS/rayJobs/NAME, or NS/NAME with a provider kubernetes block"
	var rest string
	var err error
	st.Cluster, st.Project, st.Location, rest, err = clusterscope.Import(id, "/namespaces/", "NS/rayJobs/NAME", r.clients)
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
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateImporting, []byte(`true`))...)
}

func (r *rayJobResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	m, u, diags := knownRayJob(ctx, req.Config.Raw, req.Config)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	// A job has one worker group, of TPUs or of GPUs. This is resourcevalidator.ExactlyOneOf's check and wording,
	// on the model already decoded here: the validator decodes the configuration once more for each of the N jobs.
	if !u.At("tpu_workers") && !u.At("gpu_workers") && (m.TPUWorkers == nil) == (m.GPUWorkers == nil) {
		resp.Diagnostics.AddAttributeError(path.Root("tpu_workers"), "Invalid Attribute Combination",
			"Exactly one of these attributes must be configured: [tpu_workers,gpu_workers]")
	}
	validateRayJob(&m, &resp.Diagnostics)
}

// knownRayJob decodes a RayJob configuration or plan with unknown values read as null (tfvalue.GetKnown). One with nothing
// unknown (every job's configuration once its pool pair is applied, every unchanged job's plan) decodes without the
// framework's reflection, which compiles a regexp per struct field and was a quarter of the provider's CPU in a plan.
func knownRayJob(ctx context.Context, raw tftypes.Value, s tfsdk.Config) (rayJobModel, tfvalue.Unknowns, diag.Diagnostics) {
	var m rayJobModel
	if raw.IsFullyKnown() && tfvalue.FillScalars(ctx, raw, &m) {
		return m, nil, nil
	}
	m = rayJobModel{}
	u, diags := tfvalue.GetKnown(ctx, raw, s, &m)
	return m, u, diags
}

// ModifyPlan resolves the cluster and the id, names the files' ConfigMap, works out the hosts per slice and the
// autoscaling default, at plan time, and checks again what became known since validation. It sets single attributes,
// so that values still unknown stay unknown.
func (r *rayJobResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	m, u, diags := knownRayJob(ctx, req.Plan.Raw, tfsdk.Config{Schema: req.Plan.Schema})
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	suffix, kubeID := "", ""
	if !u.At("name") && !u.At("namespace") {
		suffix = "namespaces/" + m.Namespace.ValueString() + "/rayJobs/" + m.Name.ValueString()
		kubeID = m.Namespace.ValueString() + "/" + m.Name.ValueString()
	}
	clusterscope.Plan(ctx, r.clients, req, resp, suffix, kubeID)
	set := func(name string, v attr.Value) {
		resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, name, v)...)
	}
	if w := m.TPUWorkers; w != nil && !w.Topology.IsNull() && !w.ChipsPerNode.IsNull() {
		if n, err := numOfHosts(w.Topology.ValueString(), w.ChipsPerNode.ValueInt64()); err == nil {
			set("num_of_hosts", types.Int64Value(int64(n)))
		}
	}
	if m.GPUWorkers != nil {
		set("num_of_hosts", types.Int64Value(1))
	}
	// Defaults fill only what the configuration leaves out: a value configured but not known yet stays unknown. They
	// are planned whenever the configuration leaves them out, not only when unknown, as a schema Default is: a value
	// changed by hand (read back into state) is planned back, which UseStateForUnknown alone would keep.
	cfgFiles, cfgAutoscaling := tfvalue.RootString(req.Config.Raw, "files_config_map"), tfvalue.RootBool(req.Config.Raw, "enable_in_tree_autoscaling")
	// planDefault plans v for an attribute the configuration leaves out. A value in the plan (the prior one, read as
	// null when unknown) that differs replaces the job, as the attribute's RequiresReplace would if the change were in
	// the configuration: that modifier ran before this, on the prior value.
	planDefault := func(name string, planned, v attr.Value) {
		if !req.State.Raw.IsNull() && !planned.IsNull() && !v.Equal(planned) {
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root(name))
		}
		set(name, v)
	}
	if (u.At("files_config_map") || len(m.Files.Elements()) > 0) && !u.At("name") && cfgFiles.IsNull() {
		planDefault("files_config_map", m.FilesConfigMap, types.StringValue(m.Name.ValueString()+"-files"))
	}
	if !u.At("queue") && !u.At("elastic") && cfgAutoscaling.IsNull() {
		v := types.BoolValue(m.Queue.IsNull() || m.Elastic.ValueBool())
		planDefault("enable_in_tree_autoscaling", m.EnableInTreeAutoscaling, v)
		m.EnableInTreeAutoscaling = v
	}
	if tfdrift.PlanRepair(ctx, req, resp) {
		// Every change of the job's spec is a new run, a repair too.
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("drift"))
	}
	validateRayJob(&m, &resp.Diagnostics)
	if !resp.Diagnostics.HasError() && m.Elastic.ValueBool() && !u.At("queue") && !u.At("namespace") && !u.At("cluster") && r.queueChanged(ctx, req, &m) {
		r.refuseElasticOnMultiKueue(ctx, &m, resp)
	}
}

func (r *rayJobResource) kube(ctx context.Context, cluster, project, location types.String, diags *diag.Diagnostics) (*kube.Clients, bool) {
	return clusterscope.Kube(ctx, r.clients, cluster, project, location, diags)
}

// recordRayJobBaseline keeps what the create left on the job, for Read to compare with. Without one, drift is not
// compared for this job: a warning, since the job was submitted as asked.
func recordRayJobBaseline(ctx context.Context, c *kube.Clients, job *rayv1.RayJob, cm *corev1.ConfigMap, p tfvalue.PrivateState, diags *diag.Diagnostics) {
	if job == nil {
		return
	}
	b, err := rayJobBaseline(c, job, cm)
	if err != nil {
		diags.AddWarning("Drift not recorded", fmt.Sprintf("RayJob %s/%s was submitted, but what the create left could not be read, so "+
			"changes made beside Terraform are not compared for it: %v", job.Namespace, job.Name, err))
	}
	tfdrift.Record(ctx, p, b, diags)
}
