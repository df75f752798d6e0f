package multikueue

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/identity"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	mk "github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

var (
	_ resource.ResourceWithConfigure      = (*multiKueueWorkerResource)(nil)
	_ resource.ResourceWithImportState    = (*multiKueueWorkerResource)(nil)
	_ resource.ResourceWithIdentity       = (*multiKueueWorkerResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*multiKueueWorkerResource)(nil)
	_ resource.ResourceWithValidateConfig = (*multiKueueWorkerResource)(nil)
)

// Kueue connects to a new worker within seconds; the wait is for a worker whose API server is still starting.
const defaultMultiKueueWorkerTimeout = 5 * time.Minute

// NewWorker is the dwsfallback_multikueue_worker resource.
func NewWorker() resource.Resource { return &multiKueueWorkerResource{} }

type multiKueueWorkerResource struct {
	clients clusterscope.Clients
}

// multiKueueWorkerIdentity names the object by the attributes of its id (identity.Spec).
var multiKueueWorkerIdentity = identity.New("projects/{project}/locations/{location}/clusters/{cluster}/multiKueueClusters/{name}", "{name}")

func (r *multiKueueWorkerResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_multikueue_worker"
}

func (r *multiKueueWorkerResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = multiKueueWorkerIdentity.Schema()
}

func (r *multiKueueWorkerResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = clusterscope.FromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (r *multiKueueWorkerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer multiKueueWorkerIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	var plan multiKueueWorkerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	var given types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("kubeconfig_wo"), &given)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultMultiKueueWorkerTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if !r.write(ctx, &plan, given.ValueString(), "creating", &resp.State, resp.Private, &resp.Diagnostics) || resp.Diagnostics.HasError() {
		return
	}
	// The config lists its workers by name, so a worker made again under its name (a replacement, which left the
	// config on its destroy) would stay out of it until the config's next apply: it joins again here.
	if cfg := plan.Config.ValueString(); cfg != "" {
		if c, ok := r.kube(ctx, &plan, &resp.Diagnostics); ok {
			if err := mk.JoinConfig(ctx, c.Kueue, cfg, plan.Name.ValueString(), kube.FieldManager); err != nil {
				resp.Diagnostics.AddError(fmt.Sprintf("creating MultiKueueCluster (%s)", plan.Name.ValueString()), c.Explain("MultiKueueConfig", cfg, err).Error())
			}
		}
	}
}

func (r *multiKueueWorkerResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	// Set first: a Read that finds the object gone must still name it.
	multiKueueWorkerIdentity.FromState(&req.State, resp.Identity, &resp.Diagnostics)
	var st multiKueueWorkerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := clusterscope.KubeForRead(ctx, r.clients, st.Cluster, st.Project, st.Location, resp)
	if !ok {
		return
	}
	mkc, err := mk.FindCluster(ctx, c.Kueue, st.Name.ValueString())
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading MultiKueueCluster (%s)", st.Name.ValueString()), c.Explain("MultiKueueCluster", st.Name.ValueString(), err).Error())
		return
	}
	if mkc == nil {
		resp.Diagnostics.AddWarning("MultiKueueCluster not found", fmt.Sprintf("MultiKueueCluster %s no longer exists on %s; it will be created again.", st.Name.ValueString(), c.Host))
		resp.State.RemoveResource(ctx)
		return
	}
	flattenWorker(&st, mkc)
	current, access, err := r.credentialsCurrent(ctx, c, &st, writtenKubeconfig(ctx, req.Private, &resp.Diagnostics))
	var down *unreachable
	if errors.As(err, &down) {
		resp.Diagnostics.AddWarning("Worker not reachable", down.Error()+". credentials_current reads false until it answers.")
		err = nil
	}
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading the credentials of MultiKueueCluster (%s)", st.Name.ValueString()), err.Error())
		return
	}
	st.CredentialsCurrent = types.BoolValue(current)
	baselines := tfdrift.Read(ctx, req.Private, &resp.Diagnostics)
	d, err := tfdrift.Applied(c, baselines, []tfdrift.Object{multiKueueClusterObject(mkc)})
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading MultiKueueCluster (%s)", st.Name.ValueString()), err.Error())
		return
	}
	if access != nil && slices.ContainsFunc(access.objs, func(o tfdrift.Object) bool { _, ok := baselines[o.Key]; return ok }) {
		// The worker's schemas come from the worker: one that does not answer warns, as for its credentials. Its
		// ServiceAccount joins under the same condition, an apply of this provider's: before that (an import of what
		// Kueue's script made), the first apply adopts it, which is not drift.
		if wd, err := tfdrift.Applied(access.c, baselines, access.objs); err != nil {
			resp.Diagnostics.AddWarning("Worker not reachable", fmt.Sprintf("The worker's ClusterRole and ClusterRoleBinding could not be compared: %v", err))
		} else {
			d = append(d, wd...)
		}
		d = append(d, access.account...)
		if access.accountErr != nil {
			resp.Diagnostics.AddWarning("Drift not compared", fmt.Sprintf("The worker's ServiceAccount could not be compared: %v", access.accountErr))
		}
	}
	st.Drift = tfdrift.List(d)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

func (r *multiKueueWorkerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer multiKueueWorkerIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	var plan, st multiKueueWorkerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	var given types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("kubeconfig_wo"), &given)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, defaultMultiKueueWorkerTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// Once written and saved in state, the old credentials go even if the worker has not connected yet: no later
	// apply would know of them. Until then, state holds the prior values and the next apply does it all again.
	if written := r.write(ctx, &plan, given.ValueString(), "updating", &resp.State, resp.Private, &resp.Diagnostics); !written {
		return
	}
	// The wait for Active may have used up the timeout; the clean-up gets a little time of its own.
	ctx, cancelCleanup := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancelCleanup()
	c, found := r.kube(ctx, &plan, &resp.Diagnostics)
	if !found {
		return
	}
	// A kubeconfig brought instead of the one made here, another ServiceAccount, or another worker cluster: the old
	// token would still open the old worker. Removals an earlier apply could not finish are tried again with it.
	// A new leftover fails the apply; one retried only warns, so a worker that stays unreachable does not fail every
	// apply of the configuration (each plan still shows it).
	left := r.removeAll(ctx, r.stillToRemove(pendingRemovals(ctx, req.Private, &resp.Diagnostics), &plan), retryFailed, resp.Diagnostics.AddWarning)
	if !st.bringsKubeconfig() && (plan.bringsKubeconfig() || r.moved(&st, &plan) || plan.ServiceAccount.ValueString() != st.ServiceAccount.ValueString()) {
		left = append(left, r.removeAll(ctx, r.oldCredentials(&st, c.Host, &resp.Diagnostics), retryFailed, resp.Diagnostics.AddError)...)
	}
	recordRemovals(ctx, resp.Private, left, &resp.Diagnostics)
	// The Secret moved: the old one holds credentials nothing names any more, unless another worker's
	// MultiKueueCluster names it (one pointed at it by hand).
	if old := st.SecretName.ValueString(); old != "" && old != plan.SecretName.ValueString() {
		if err := mk.DeleteUnusedSecret(ctx, c.Core, c.Kueue, old, plan.Name.ValueString()); err != nil {
			resp.Diagnostics.AddError("removing the previous kubeconfig Secret", c.Explain("MultiKueueCluster", plan.Name.ValueString(), err).Error())
		}
	}
}

// moved reports whether the worker cluster changed. Both sides are resolved, so a name and an id of one cluster are
// the same, and a same-named cluster in another project or location is not.
func (r *multiKueueWorkerResource) moved(st, plan *multiKueueWorkerModel) bool {
	return !st.WorkerCluster.IsNull() && !r.sameWorker(st.WorkerCluster.ValueString(), plan.WorkerCluster.ValueString())
}

func (r *multiKueueWorkerResource) sameWorker(a, b string) bool {
	ra, errA := clusterscope.Resolve(a, "", "", r.clients)
	rb, errB := clusterscope.Resolve(b, "", "", r.clients)
	if errA != nil || errB != nil {
		return clusterscope.Same(a, b)
	}
	return ra == rb
}

// removeAll removes old credentials from their workers, which the manager no longer uses, and returns the ones still
// there: each still opens its worker, so report says what to delete by hand, after the error and then.
func (r *multiKueueWorkerResource) removeAll(ctx context.Context, pending []oldCredentials, then string, report func(summary, detail string)) []oldCredentials {
	var left []oldCredentials
	for _, old := range pending {
		if err := r.removeOld(ctx, old); err != nil {
			w := old.worker()
			report("removing the ServiceAccount the manager no longer uses", fmt.Sprintf("%v. The manager no longer uses it, but its token still opens %s. %s"+
				"Or delete ServiceAccount %s/%s, its token Secret %s, ClusterRole %s and ClusterRoleBinding %s there by hand (unless another manager uses them).",
				err, old.WorkerCluster, then, mk.KueueNamespace, old.ServiceAccount, w.TokenSecret(), w.Role(), w.Binding()))
			left = append(left, old)
		}
	}
	return left
}

const retryFailed = "Each later plan shows an update, with a warning, and each apply tries again, until the worker answers or GKE no longer has it " +
	"(if it never will, re-import this worker: terraform state rm, then import, forgets what is left). "

// pendingInPlan is what ModifyPlan's update would try to remove again; the plan is decoded only when there is any.
func (r *multiKueueWorkerResource) pendingInPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) []oldCredentials {
	pending := pendingRemovals(ctx, req.Private, &resp.Diagnostics)
	if len(pending) == 0 || req.State.Raw.IsNull() {
		return nil
	}
	var planned multiKueueWorkerModel
	resp.Diagnostics.Append(resp.Plan.Get(ctx, &planned)...)
	return r.stillToRemove(pending, &planned)
}

// stillToRemove is pending without what the plan uses itself (a move back to the old worker): those credentials are
// in use again. An unknown worker_cluster keeps every entry.
func (r *multiKueueWorkerResource) stillToRemove(pending []oldCredentials, plan *multiKueueWorkerModel) []oldCredentials {
	var out []oldCredentials
	for _, old := range pending {
		if !plan.bringsKubeconfig() && !plan.WorkerCluster.IsUnknown() && !plan.ServiceAccount.IsUnknown() &&
			old.ServiceAccount == plan.ServiceAccount.ValueString() && r.sameWorker(old.WorkerCluster, plan.WorkerCluster.ValueString()) {
			continue
		}
		out = append(out, old)
	}
	return out
}

// oldCredentials is what st's worker credentials are to remove; none, with a warning, when st does not know its
// worker cluster (imported without it).
func (r *multiKueueWorkerResource) oldCredentials(st *multiKueueWorkerModel, managerHost string, diags *diag.Diagnostics) []oldCredentials {
	w := st.workerOf(managerHost)
	if st.WorkerCluster.IsNull() {
		diags.AddWarning("removing the ServiceAccount the manager no longer uses", fmt.Sprintf("The worker cluster this MultiKueueCluster used before is not known (imported without it), so ServiceAccount %s/%s, "+
			"its ClusterRole %s and ClusterRoleBinding %s may still be there: remove them by hand.", mk.KueueNamespace, w.ServiceAccount, w.Role(), w.Binding()))
		return nil
	}
	// Resolved now: a short name read later, under other provider defaults, could name another cluster.
	cluster := st.WorkerCluster.ValueString()
	if ref, err := clusterscope.Resolve(cluster, "", "", r.clients); err == nil {
		cluster = ref.String()
	}
	return []oldCredentials{{WorkerCluster: cluster, ServiceAccount: w.ServiceAccount, User: w.User}}
}

// removeOld takes old's user off its ServiceAccount on its worker, and the objects with the last user. A worker GKE
// no longer has, or is deleting, took them with it.
func (r *multiKueueWorkerResource) removeOld(ctx context.Context, old oldCredentials) error {
	ep, err := r.findWorker(ctx, &multiKueueWorkerModel{WorkerCluster: types.StringValue(old.WorkerCluster)})
	if err != nil || ep == nil || ep.stopping {
		return err
	}
	w, err := r.clients.Kube(ctx, ep.ref)
	if err != nil {
		return fmt.Errorf("connecting to the worker %s: %w", ep.ref, err)
	}
	if err := mk.Remove(ctx, mk.Clients{Core: w.Core, RBAC: w.RBAC}, old.worker()); err != nil && !r.workerGone(ctx, old.WorkerCluster) {
		return w.Explain("ServiceAccount", old.ServiceAccount, err)
	}
	return nil
}

func (r *multiKueueWorkerResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var st multiKueueWorkerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := st.Timeouts.Delete(ctx, defaultMultiKueueWorkerTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, ok := r.kube(ctx, &st, &resp.Diagnostics)
	if !ok {
		return
	}
	summary := fmt.Sprintf("deleting MultiKueueCluster (%s)", st.Name.ValueString())
	if !r.leaveConfig(ctx, c, &st, summary, &resp.Diagnostics) {
		return
	}
	if err := mk.DeleteCluster(ctx, c.Kueue, st.Name.ValueString()); err != nil {
		resp.Diagnostics.AddError(summary, c.Explain("MultiKueueCluster", st.Name.ValueString(), err).Error())
		return
	}
	if err := mk.DeleteUnusedSecret(ctx, c.Core, c.Kueue, st.SecretName.ValueString(), st.Name.ValueString()); err != nil {
		resp.Diagnostics.AddError(summary, c.Explain("MultiKueueCluster", st.Name.ValueString(), err).Error())
		return
	}
	// Old credentials an update could not remove are tried once more. A worker that still does not answer does not
	// hold the destroy (the manager's objects are gone already): the warning is the last word on them.
	r.removeAll(ctx, r.stillToRemove(pendingRemovals(ctx, req.Private, &resp.Diagnostics), &st),
		"Nothing will try again after this destroy. ", resp.Diagnostics.AddWarning)
	if st.bringsKubeconfig() {
		return
	}
	// The same removal as an update's of old credentials: nothing when the worker cluster is gone or going.
	w := st.workerOf(c.Host)
	if err := r.removeOld(ctx, oldCredentials{WorkerCluster: st.WorkerCluster.ValueString(), ServiceAccount: w.ServiceAccount, User: w.User}); err != nil {
		resp.Diagnostics.AddError(summary, fmt.Sprintf("removing the ServiceAccount and its rights on the worker: %v", err))
	}
}

func (r *multiKueueWorkerResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importID, diags := multiKueueWorkerIdentity.ImportID(ctx, req)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	defer multiKueueWorkerIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	st := multiKueueWorkerModel{Timeouts: tfvalue.TimeoutsNull(), KubeconfigWO: types.StringNull(), KubeconfigWOVersion: types.Int64Null(),
		ServiceAccount: types.StringValue("multikueue-sa"), WorkerCluster: types.StringNull(), Drift: types.ListNull(types.StringType)}
	var name string
	var err error
	st.Cluster, st.Project, st.Location, name, err = clusterscope.Import(importID, "/multiKueueClusters/", "NAME", r.clients)
	if err != nil {
		resp.Diagnostics.AddError("importing MultiKueueCluster", err.Error())
		return
	}
	st.ID, st.Name = types.StringValue(importID), types.StringValue(name)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

func (r *multiKueueWorkerResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m multiKueueWorkerModel
	_, diags := tfvalue.KnownConfig(ctx, req.Config, &m)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !m.KubeconfigWO.IsNull() && !m.KubeconfigWO.IsUnknown() {
		if m.KubeconfigWOVersion.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root("kubeconfig_wo_version"), "kubeconfig_wo needs a version",
				"Set kubeconfig_wo_version with kubeconfig_wo: the kubeconfig is never stored, so a new version is how a changed one is written.")
		}
		if err := mk.CheckKubeconfig([]byte(m.KubeconfigWO.ValueString())); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("kubeconfig_wo"), "Kueue would refuse this kubeconfig", err.Error())
		}
	}
}

// ModifyPlan resolves the manager's cluster and the id, derives secret_name, and plans the credentials written again
// when Read found them stale.
func (r *multiKueueWorkerResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	clusterscope.PlanNamed(ctx, r.clients, req, resp, "multiKueueClusters")
	var cfgSecret, name types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("secret_name"), &cfgSecret)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	if resp.Diagnostics.HasError() {
		return
	}
	changed := false
	if cfgSecret.IsNull() {
		want := types.StringUnknown()
		if !name.IsUnknown() {
			want = types.StringValue(defaultSecretName(name.ValueString()))
		}
		var planned types.String
		resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("secret_name"), &planned)...)
		if !planned.Equal(want) {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("secret_name"), want)...)
			changed = true
		}
	}
	if pending := r.pendingInPlan(ctx, req, resp); len(pending) > 0 {
		var what []string
		for _, o := range pending {
			what = append(what, fmt.Sprintf("ServiceAccount %s/%s on %s", mk.KueueNamespace, o.ServiceAccount, o.WorkerCluster))
		}
		resp.Diagnostics.AddWarning("old worker credentials still to remove", fmt.Sprintf("An earlier apply could not remove %s, which the manager no longer uses: this apply tries again.",
			strings.Join(what, ", ")))
		changed = true
	}
	var current types.Bool
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("credentials_current"), &current)...)
	if !current.ValueBool() {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("credentials_current"), types.BoolValue(true))...)
		changed = changed || !req.State.Raw.IsNull()
	}
	if !req.State.Raw.IsNull() && tfdrift.PlanRepair(ctx, req, resp) {
		changed = true
	}
	if changed && !req.State.Raw.IsNull() {
		for _, a := range []string{"active_reason", "active_message"} {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(a), types.StringUnknown())...)
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("active"), types.BoolUnknown())...)
	}
}

// write makes the worker's credentials, the manager's Secret and the MultiKueueCluster, saves state, then waits
// until Kueue reports the worker Active. given is the kubeconfig the user brings (kubeconfig_wo), "" when the
// provider makes it. written tells that the Secret and the MultiKueueCluster were written and state saved; errors are
// in diags.
func (r *multiKueueWorkerResource) write(ctx context.Context, m *multiKueueWorkerModel, given, verb string, state tfvalue.StateSetter, private tfvalue.PrivateState, diags *diag.Diagnostics) (written bool) {
	summary := fmt.Sprintf("%s MultiKueueCluster (%s)", verb, m.Name.ValueString())
	c, ok := r.kube(ctx, m, diags)
	if !ok {
		return false
	}
	if verb == "creating" {
		if have, err := mk.FindCluster(ctx, c.Kueue, m.Name.ValueString()); err != nil || have != nil {
			msg := fmt.Sprintf("MultiKueueCluster %s already exists on %s: import it (terraform import, id %s) instead of creating it", m.Name.ValueString(), c.Host, m.ID.ValueString())
			if err != nil {
				msg = c.Explain("MultiKueueCluster", m.Name.ValueString(), err).Error()
			}
			diags.AddError(summary, msg)
			return false
		}
	}
	kubeconfig := []byte(given)
	var access *workerAccess
	if !m.bringsKubeconfig() {
		var err error
		if kubeconfig, access, err = r.makeCredentials(ctx, m, c.Host, diags); err != nil {
			diags.AddError(summary, err.Error())
			return false
		}
	}
	if err := mk.PutSecret(ctx, c.Core, m.SecretName.ValueString(), kubeconfig); err != nil {
		diags.AddError(summary, c.Explain("MultiKueueCluster", m.Name.ValueString(), err).Error())
		return false
	}
	// Forced: the configuration owns the Secret's name, so one set by hand (kubectl patch) is drift to undo, not a
	// conflict. A create has already made sure there is no object to take over.
	mkc, err := mk.ApplyCluster(ctx, c.Kueue, m.Name.ValueString(), m.SecretName.ValueString(), kube.FieldManager, true)
	if err != nil {
		if verb == "creating" {
			// Not in state, so nothing would ever remove a Secret that opens the worker.
			_ = mk.DeleteSecret(ctx, c.Core, m.SecretName.ValueString())
		}
		diags.AddError(summary, c.Explain("MultiKueueCluster", m.Name.ValueString(), err).Error())
		return false
	}
	m.CredentialsCurrent, m.Drift = types.BoolValue(true), tfdrift.AppliedValue(m.Drift)
	recordKubeconfig(ctx, private, given, diags)
	b := tfdrift.AppliedBaselines(c, "MultiKueueCluster "+m.Name.ValueString(), []tfdrift.Object{multiKueueClusterObject(mkc)}, tfdrift.ByManager, diags)
	if access != nil {
		maps.Copy(b, tfdrift.AppliedBaselines(access.c, "The worker's ClusterRole and ClusterRoleBinding", access.objs, tfdrift.ByWritten(access.written), diags))
	}
	tfdrift.Record(ctx, private, b, diags)
	flattenWorker(m, mkc)
	// In state before the wait: a worker that never connects taints the resource instead of orphaning it.
	diags.Append(state.Set(ctx, m)...)
	if mkc, err = mk.WaitActive(ctx, c.Kueue, m.Name.ValueString()); mkc != nil {
		flattenWorker(m, mkc)
		diags.Append(state.Set(ctx, m)...)
	}
	if err != nil {
		diags.AddError(summary, fmt.Sprintf("%v. Kueue on the manager could not use the worker; check that the worker cluster runs Kueue and is reachable from the manager.", err))
		return true
	}
	return true
}

func (r *multiKueueWorkerResource) kube(ctx context.Context, m *multiKueueWorkerModel, diags *diag.Diagnostics) (*kube.Clients, bool) {
	return clusterscope.Kube(ctx, r.clients, m.Cluster, m.Project, m.Location, diags)
}

func multiKueueClusterObject(mkc *kueue.MultiKueueCluster) tfdrift.Object {
	return tfdrift.Object{Key: "MultiKueueCluster/" + mkc.Name, GVK: kueue.GroupVersion.WithKind("MultiKueueCluster"), Obj: mkc}
}

// leaveConfig clears the way for the worker's destroy: its own config (config) lets it go, any other that lists it
// holds it. Refused before anything goes: a MultiKueueConfig that still lists the worker would lose it silently.
func (r *multiKueueWorkerResource) leaveConfig(ctx context.Context, c *kube.Clients, st *multiKueueWorkerModel, summary string, diags *diag.Diagnostics) bool {
	name, own := st.Name.ValueString(), st.Config.ValueString()
	users, err := mk.ConfigsListing(ctx, c.Kueue, name)
	if err != nil {
		diags.AddError(summary, c.Explain("MultiKueueCluster", name, err).Error())
		return false
	}
	others := slices.DeleteFunc(slices.Clone(users), func(u string) bool { return u == own })
	if len(others) > 0 {
		hint := ""
		if own == "" {
			hint = " (or set config on this worker to the config's name, so that its destroy takes it out in the same apply)"
		}
		diags.AddError(summary, fmt.Sprintf("MultiKueueConfig %v still lists worker %s on %s: remove it from their clusters (the workers of dwsfallback_multikueue_config) first%s. Nothing was deleted.",
			others, name, c.Host, hint))
		return false
	}
	if len(users) == 0 {
		return true
	}
	// Terraform destroys the worker before it updates the config that drops it; the config's update then finds it gone.
	if err := mk.LeaveConfig(ctx, c.Kueue, own, name, kube.FieldManager); err != nil {
		detail := c.Explain("MultiKueueConfig", own, err).Error()
		if errors.Is(err, mk.ErrLastWorker) {
			detail += ": destroy the config with its last worker, or give it another worker first"
		}
		diags.AddError(summary, detail+". Nothing was deleted.")
		return false
	}
	return true
}
