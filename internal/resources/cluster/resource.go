package cluster

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkedrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/identity"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

var (
	_ resource.ResourceWithConfigure   = (*clusterResource)(nil)
	_ resource.ResourceWithImportState = (*clusterResource)(nil)
	_ resource.ResourceWithIdentity    = (*clusterResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*clusterResource)(nil)
)

// A cluster's operations take minutes on GKE, longer when it has pools: the pool pairs' generous defaults.
const (
	clusterCreateTimeout = 45 * time.Minute
	clusterUpdateTimeout = 45 * time.Minute
	clusterDeleteTimeout = 45 * time.Minute
)

// New is the dwsfallback_cluster resource.
func New() resource.Resource { return &clusterResource{} }

type clusterResource struct {
	clients clusterscope.Clients
}

// clusterIdentity names the object by the attributes of its id (identity.Spec).
var clusterIdentity = identity.New("projects/{project}/locations/{location}/clusters/{name}", "")

func (r *clusterResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster"
}

func (r *clusterResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = clusterIdentity.Schema()
}

func (r *clusterResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = clusterscope.FromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (r *clusterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer clusterIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	var plan clusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, clusterCreateTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client, ref, ok := r.connect(ctx, &plan, &resp.Diagnostics)
	if !ok {
		return
	}
	parent := fmt.Sprintf("projects/%s/locations/%s", ref.Project, ref.Location)
	err := client.Mutate(ctx, ref.String(), func(ctx context.Context) (*containerpb.Operation, error) {
		return client.API().CreateCluster(ctx, &containerpb.CreateClusterRequest{Parent: parent, Cluster: expandCluster(&plan)})
	}, func(*containerpb.Operation) {
		// Recorded as soon as GKE accepted it: a failed or interrupted wait taints the cluster instead of losing it.
		st := plan
		st.ResolvedVersion, st.Endpoint, st.CACertificate, st.Status = types.StringValue(""), types.StringValue(""), types.StringValue(""), types.StringValue("PROVISIONING")
		st.Drift = tfdrift.AppliedValue(st.Drift)
		resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
	})
	if err != nil && !gke.IsAlreadyExists(err) {
		resp.Diagnostics.AddError(fmt.Sprintf("creating GKE cluster (%s)", ref.Name), err.Error())
		return
	}
	cl, gerr := gke.FindCluster(ctx, client, ref.String())
	if gerr != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading GKE cluster (%s)", ref.Name), gerr.Error())
		return
	}
	if err != nil && gke.IsAlreadyExists(err) {
		// Left by an interrupted apply, or made by hand: adopt it only if it is running.
		if cl.GetStatus() != containerpb.Cluster_RUNNING {
			resp.Diagnostics.AddError(fmt.Sprintf("creating GKE cluster (%s)", ref.Name), fmt.Sprintf("%v; it exists with status %s: import it, or wait and apply again", err, cl.GetStatus()))
			return
		}
		// Someone else's cluster of the same name is not ours to take over: only one this configuration describes.
		if diffs := clusterDiffers(&plan, cl); len(diffs) > 0 {
			resp.Diagnostics.AddError(fmt.Sprintf("creating GKE cluster (%s)", ref.Name), fmt.Sprintf("A cluster named %s already exists, "+
				"and it is not the one this configuration describes (%s). Import it (terraform import ... %s) and reconcile the "+
				"configuration, or choose another name.", ref.Name, strings.Join(diffs, "; "), ref))
			return
		}
	}
	flattenCluster(&plan, cl)
	plan.Drift = tfdrift.AppliedValue(plan.Drift)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	writeClusterBaseline(ctx, resp.Private, &plan, &resp.Diagnostics)
	warnServedVersion(ctx, r.clients, ref, cl, &resp.Diagnostics)
}

func (r *clusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	// Set first: a Read that finds the object gone must still name it.
	clusterIdentity.FromState(&req.State, resp.Identity, &resp.Diagnostics)
	var st clusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	client, ref, ok := r.connect(ctx, &st, &resp.Diagnostics)
	if !ok {
		return
	}
	cl, err := gke.FindCluster(ctx, client, ref.String())
	if gke.IsNotFound(err) {
		resp.Diagnostics.AddWarning("Cluster not found", fmt.Sprintf("GKE cluster %s no longer exists; it will be created again.", ref))
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading GKE cluster (%s)", ref.Name), err.Error())
		return
	}
	flattenCluster(&st, cl)
	var d []string
	if base := readClusterBaseline(ctx, req.Private, &resp.Diagnostics); base != nil {
		var recreating []string
		tfvalue.ReadPrivate(ctx, req.Private, privateRecreating, &recreating, &resp.Diagnostics)
		d = gkedrift.Cluster(base, cl, recreating)
	}
	st.Drift = tfdrift.List(d)
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

func (r *clusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer clusterIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	var plan, prior clusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, clusterUpdateTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client, ref, ok := r.connect(ctx, &plan, &resp.Diagnostics)
	if !ok {
		return
	}
	name, obj := ref.String(), "Cluster/"+ref.Name
	var steps []struct {
		what string
		call func(context.Context) (*containerpb.Operation, error)
	}
	add := func(what string, call func(context.Context) (*containerpb.Operation, error)) {
		steps = append(steps, struct {
			what string
			call func(context.Context) (*containerpb.Operation, error)
		}{what, call})
	}
	if !plan.RayOperator.Equal(prior.RayOperator) || driftNames(prior.Drift, obj, "addonsConfig") {
		add("the RayOperator add-on", func(ctx context.Context) (*containerpb.Operation, error) {
			return client.API().SetAddonsConfig(ctx, &containerpb.SetAddonsConfigRequest{Name: name,
				AddonsConfig: &containerpb.AddonsConfig{RayOperatorConfig: &containerpb.RayOperatorConfig{Enabled: plan.RayOperator.ValueBool()}}})
		})
	}
	if !plan.ImageStreaming.Equal(prior.ImageStreaming) || driftNames(prior.Drift, obj, "nodePoolDefaults") {
		add("image streaming", func(ctx context.Context) (*containerpb.Operation, error) {
			return client.API().UpdateCluster(ctx, &containerpb.UpdateClusterRequest{Name: name,
				Update: &containerpb.ClusterUpdate{DesiredGcfsConfig: &containerpb.GcfsConfig{Enabled: plan.ImageStreaming.ValueBool()}}})
		})
	}
	if !plan.ReleaseChannel.Equal(prior.ReleaseChannel) || driftNames(prior.Drift, obj, "releaseChannel") {
		ch := containerpb.ReleaseChannel_Channel(containerpb.ReleaseChannel_Channel_value[plan.ReleaseChannel.ValueString()])
		add("the release channel", func(ctx context.Context) (*containerpb.Operation, error) {
			return client.API().UpdateCluster(ctx, &containerpb.UpdateClusterRequest{Name: name,
				Update: &containerpb.ClusterUpdate{DesiredReleaseChannel: &containerpb.ReleaseChannel{Channel: ch}}})
		})
	}
	if !plan.KubernetesVersion.Equal(prior.KubernetesVersion) && !versionMatches(plan.KubernetesVersion.ValueString(), prior.ResolvedVersion.ValueString()) {
		add("the control plane version", func(ctx context.Context) (*containerpb.Operation, error) {
			return client.API().UpdateCluster(ctx, &containerpb.UpdateClusterRequest{Name: name,
				Update: &containerpb.ClusterUpdate{DesiredMasterVersion: plan.KubernetesVersion.ValueString()}})
		})
	}
	if !plan.Labels.Equal(prior.Labels) || driftNames(prior.Drift, obj, "resourceLabels") {
		add("labels", func(ctx context.Context) (*containerpb.Operation, error) {
			cl, err := gke.FindCluster(ctx, client, ref.String())
			if err != nil {
				return nil, err
			}
			return client.API().SetLabels(ctx, &containerpb.SetLabelsRequest{Name: name, ResourceLabels: tfvalue.StringMap(plan.Labels), LabelFingerprint: cl.GetLabelFingerprint()})
		})
	}
	for _, s := range steps {
		if err := client.Mutate(ctx, name, s.call, nil); err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("updating %s of GKE cluster (%s)", s.what, ref.Name), err.Error())
			return
		}
	}
	if err := repairDefaultPools(ctx, client, ref, &plan, prior.Drift, resp.Private, &resp.Diagnostics); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("repairing the default pool of GKE cluster (%s)", ref.Name), err.Error())
		return
	}
	cl, err := gke.FindCluster(ctx, client, ref.String())
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading GKE cluster (%s)", ref.Name), err.Error())
		return
	}
	flattenCluster(&plan, cl)
	plan.Drift = tfdrift.AppliedValue(plan.Drift)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	writeClusterBaseline(ctx, resp.Private, &plan, &resp.Diagnostics)
	if plan.ResolvedVersion.ValueString() != prior.ResolvedVersion.ValueString() {
		warnServedVersion(ctx, r.clients, ref, cl, &resp.Diagnostics)
	}
}

func (r *clusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var st clusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if st.DeletionProtection.ValueBool() {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting GKE cluster (%s)", st.Name.ValueString()),
			"deletion_protection is true: set it to false and apply, then destroy. The cluster and everything on it is kept.")
		return
	}
	timeout, diags := st.Timeouts.Delete(ctx, clusterDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client, ref, ok := r.connect(ctx, &st, &resp.Diagnostics)
	if !ok {
		return
	}
	err := client.Mutate(ctx, ref.String(), func(ctx context.Context) (*containerpb.Operation, error) {
		return client.API().DeleteCluster(ctx, &containerpb.DeleteClusterRequest{Name: ref.String()})
	}, nil)
	if err != nil && !gke.IsNotFound(err) {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting GKE cluster (%s)", ref.Name), err.Error())
	}
}

func (r *clusterResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importID, diags := clusterIdentity.ImportID(ctx, req)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	defer clusterIdentity.FromState(&resp.State, resp.Identity, &resp.Diagnostics)
	ref, err := clusterscope.Parse(importID)
	if err != nil || ref.Project == "" || strings.Contains(importID, "/nodePools/") {
		resp.Diagnostics.AddError("importing GKE cluster", fmt.Sprintf("id %q must be projects/PROJECT/locations/LOCATION/clusters/NAME", importID))
		return
	}
	st := clusterModel{
		ID: types.StringValue(ref.String()), Name: types.StringValue(ref.Name), Project: types.StringValue(ref.Project),
		Location: types.StringValue(ref.Location), KubernetesVersion: types.StringNull(), Labels: types.MapNull(types.StringType),
		DeletionProtection: types.BoolValue(true), Timeouts: tfvalue.TimeoutsNull(), Drift: types.ListNull(types.StringType),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &st)...)
}

// ModifyPlan resolves project, location and id at plan time, so pools and queues can name the cluster in one plan.
func (r *clusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	var plan clusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.Name.IsUnknown() {
		return
	}
	ref, err := clusterscope.Resolve(plan.Name.ValueString(), tfvalue.KnownString(plan.Project), tfvalue.KnownString(plan.Location), r.clients)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("location"), "Cannot tell where the cluster goes", err.Error())
		return
	}
	plan.Project, plan.Location, plan.ID = types.StringValue(ref.Project), types.StringValue(ref.Location), types.StringValue(ref.String())
	if plan.KubernetesVersion.IsUnknown() || !versionMatches(plan.KubernetesVersion.ValueString(), plan.ResolvedVersion.ValueString()) {
		// The update moves the control plane to a version GKE resolves then; the one kept from state is not it.
		plan.ResolvedVersion = types.StringUnknown()
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
	if !req.State.Raw.IsNull() && tfdrift.PlanRepair(ctx, req, resp) {
		// The repair's operations pass through RECONCILING; the update reads the status again.
		resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, "status", types.StringUnknown())...)
		var drift types.List
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("drift"), &drift)...)
		for _, pool := range recreatedDefaultPools(drift) {
			resp.Diagnostics.AddWarning("Node pool made again", fmt.Sprintf("Node pool %s of cluster %s differs where only a new pool can "+
				"(see drift): the apply deletes it and creates it as configured. Its nodes, and what runs on them, go with it.", pool, ref.Name))
		}
	}
}
