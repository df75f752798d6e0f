package clusterscope

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/validators"
)

// Attributes are the cluster, project and location attributes. required is true for resources that need
// GKE itself (node pools), false for those that can also reach Kubernetes through the provider's kubernetes block.
func Attributes(required bool, what string) map[string]schema.Attribute {
	desc := "The GKE cluster: its name, or its id `projects/PROJECT/locations/LOCATION/clusters/NAME` (the `id` of `dwsfallback_cluster`). " +
		"Either spelling names the same cluster, and changing one for the other replaces nothing."
	if !required {
		desc += " Required unless the provider has a `kubernetes` block."
	}
	return map[string]schema.Attribute{
		"cluster": schema.StringAttribute{
			Required: required, Optional: !required,
			MarkdownDescription: desc,
			Validators:          []validator.String{validators.Func("cluster", func(s string) error { _, err := Parse(s); return err })},
			PlanModifiers:       []planmodifier.String{sameClusterModifier(what)},
		},
		"project": schema.StringAttribute{
			Optional: true, Computed: true,
			MarkdownDescription: "Project of the cluster. Defaults to the cluster id's, then the provider's.",
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"location": schema.StringAttribute{
			Optional: true, Computed: true,
			MarkdownDescription: "Location (zone or region) of the cluster. Defaults to the cluster id's, then the provider's.",
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
	}
}

// sameClusterModifier replaces the resource only when the cluster is a different one. An unknown cluster (a cluster
// that is itself being replaced) is a different one.
func sameClusterModifier(what string) planmodifier.String {
	desc := "Replaces the " + what + " when the cluster is a different one."
	return stringplanmodifier.RequiresReplaceIf(func(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
		resp.RequiresReplace = req.PlanValue.IsUnknown() || !Same(req.StateValue.ValueString(), req.PlanValue.ValueString())
	}, desc, desc)
}

// NoClusterDetail says what a resource or list without a cluster, under a provider without a kubernetes block, needs.
const NoClusterDetail = "Set cluster (the GKE cluster's name or id), or give the provider a kubernetes block that names the cluster."

// Plan resolves the cluster at plan time: project and location become known, and so does the id, which is
// the cluster's id + "/" + suffix, or kubeID when the provider's kubernetes block stands in for the cluster. An empty
// suffix or kubeID leaves the id to the resource. A cluster whose resolved project or location moved (a new provider
// default) is another cluster, and replaces the resource.
func Plan(ctx context.Context, c Clients, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, suffix, kubeID string) {
	cluster := tfvalue.RootString(req.Plan.Raw, "cluster")
	if resp.Diagnostics.HasError() || cluster.IsUnknown() {
		return
	}
	if cluster.IsNull() {
		if !c.HasKubernetesBlock() {
			resp.Diagnostics.AddAttributeError(path.Root("cluster"), "No cluster",
				NoClusterDetail)
			return
		}
		// Nothing to resolve with a kubernetes block; what the configuration sets stays as it is.
		for _, a := range []string{"project", "location"} {
			if tfvalue.RootString(req.Config.Raw, a).IsNull() {
				resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, a, types.StringNull())...)
			}
		}
		if kubeID != "" {
			resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, "id", types.StringValue(kubeID))...)
		}
		return
	}
	// A project or location carried over from state is not the configuration's word: resolve from the config.
	cfgProject, cfgLocation := tfvalue.RootString(req.Config.Raw, "project"), tfvalue.RootString(req.Config.Raw, "location")
	if cfgProject.IsUnknown() || cfgLocation.IsUnknown() {
		return
	}
	ref, err := Resolve(cluster.ValueString(), tfvalue.KnownString(cfgProject), tfvalue.KnownString(cfgLocation), c)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("cluster"), "Cannot tell which cluster", err.Error())
		return
	}
	resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, "project", types.StringValue(ref.Project))...)
	resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, "location", types.StringValue(ref.Location))...)
	if suffix != "" {
		resp.Diagnostics.Append(tfvalue.SetPlanRoot(ctx, &resp.Plan, "id", types.StringValue(ref.String()+"/"+suffix))...)
	}
	if !req.State.Raw.IsNull() {
		was, wasLocation := tfvalue.RootString(req.State.Raw, "project"), tfvalue.RootString(req.State.Raw, "location")
		// The objects belong to another cluster now. Terraform honours a replacement only on an attribute whose
		// value changes in the plan, which cluster need not (a bare name under a new provider default): so it is
		// asked on project or location, whichever moved.
		if !was.IsNull() && was.ValueString() != ref.Project {
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("project"))
		}
		if !wasLocation.IsNull() && wasLocation.ValueString() != ref.Location {
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("location"))
		}
	}
}

// PlanNamed is Plan for a cluster-scoped Kubernetes object named by the name attribute: its
// id is the cluster's id + "/" + collection + "/" + name, or the name alone with the provider's kubernetes block.
func PlanNamed(ctx context.Context, c Clients, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, collection string) {
	var name types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	if resp.Diagnostics.HasError() {
		return
	}
	suffix, kubeID := "", ""
	if !name.IsUnknown() {
		suffix, kubeID = collection+"/"+name.ValueString(), name.ValueString()
	}
	Plan(ctx, c, req, resp, suffix, kubeID)
}

// Import reads an import id: projects/P/locations/L/clusters/C<marker>REST, or REST alone when the provider has
// a kubernetes block. form describes the id in errors.
func Import(id, marker, form string, c Clients) (cluster, project, location types.String, rest string, err error) {
	cluster, project, location = types.StringNull(), types.StringNull(), types.StringNull()
	if i := strings.Index(id, marker); i >= 0 {
		ref, perr := Parse(id[:i])
		if perr != nil || ref.Project == "" {
			return cluster, project, location, "", fmt.Errorf("id %q must be projects/PROJECT/locations/LOCATION/clusters/CLUSTER%s%s, or %s with a provider kubernetes block", id, marker, form, form)
		}
		// The bare name is what configurations usually say; either spelling plans no change.
		return types.StringValue(ref.Name), types.StringValue(ref.Project), types.StringValue(ref.Location), id[i+len(marker):], nil
	}
	if c != nil && !c.HasKubernetesBlock() {
		return cluster, project, location, "", fmt.Errorf("id %q names no cluster: use projects/PROJECT/locations/LOCATION/clusters/CLUSTER%s%s, or give the provider a kubernetes block", id, marker, form)
	}
	return cluster, project, location, id, nil
}

// With adds the cluster scope's attributes to a resource's own.
func With(attrs map[string]schema.Attribute, required bool, what string) map[string]schema.Attribute {
	for k, v := range Attributes(required, what) {
		attrs[k] = v
	}
	return attrs
}

var (
	clusterNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$`)
	clusterPathRE = regexp.MustCompile(`^projects/([^/]+)/(?:locations|zones)/([^/]+)/clusters/([a-z]([-a-z0-9]{0,38}[a-z0-9])?)$`)
)

// Ref names a GKE cluster fully.
type Ref struct {
	Project, Location, Name string
}

func (c Ref) String() string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", c.Project, c.Location, c.Name)
}

// Parse reads a `cluster` attribute: a bare name, or projects/P/locations/L/clusters/C (the form of the
// cluster resource's id). A bare name leaves Project and Location empty.
func Parse(s string) (Ref, error) {
	if m := clusterPathRE.FindStringSubmatch(s); m != nil {
		return Ref{Project: m[1], Location: m[2], Name: m[3]}, nil
	}
	if clusterNameRE.MatchString(s) {
		return Ref{Name: s}, nil
	}
	return Ref{}, fmt.Errorf("%q is neither a cluster name (lowercase letters, digits and dashes, at most 40, "+
		"starting with a letter) nor a cluster id of the form projects/PROJECT/locations/LOCATION/clusters/NAME", s)
}

// Resolve fills in project and location: from the cluster id if it is one, else from the resource's own
// attributes, else from the provider's defaults.
func Resolve(cluster, project, location string, c Clients) (Ref, error) {
	ref, err := Parse(cluster)
	if err != nil {
		return ref, err
	}
	defProject, defLocation := c.Defaults()
	pick := func(vals ...string) string {
		for _, v := range vals {
			if v != "" {
				return v
			}
		}
		return ""
	}
	if ref.Project != "" && project != "" && ref.Project != project {
		return ref, fmt.Errorf("cluster id names project %q but project is %q; drop one of them", ref.Project, project)
	}
	if ref.Location != "" && location != "" && ref.Location != location {
		return ref, fmt.Errorf("cluster id names location %q but location is %q; drop one of them", ref.Location, location)
	}
	ref.Project = pick(ref.Project, project, defProject)
	ref.Location = pick(ref.Location, location, defLocation)
	if ref.Project == "" {
		return ref, fmt.Errorf("no project for cluster %q: set project on the resource or the provider, GOOGLE_PROJECT, or use a full cluster id", cluster)
	}
	if ref.Location == "" {
		return ref, fmt.Errorf("no location for cluster %q: set location on the resource or the provider, or use a full cluster id", cluster)
	}
	return ref, nil
}

// Same reports whether two spellings of the cluster attribute name the same cluster.
func Same(a, b string) bool {
	ra, errA := Parse(a)
	rb, errB := Parse(b)
	if errA != nil || errB != nil {
		return a == b
	}
	if ra.Project != "" && rb.Project != "" {
		return ra == rb
	}
	return ra.Name == rb.Name
}

// Kube returns the Kubernetes clients for a resource's cluster attributes: through GKE when cluster is set, else
// through the provider's kubernetes block.
func Kube(ctx context.Context, c Clients, cluster, project, location types.String, diags *diag.Diagnostics) (*kube.Clients, bool) {
	return ConnectKube(ctx, c, cluster, project, location, diags, nil)
}

// ConnectKube is Kube; when GKE no longer has the cluster and gone is not nil, it calls gone instead of reporting
// an error.
func ConnectKube(ctx context.Context, c Clients, cluster, project, location types.String, diags *diag.Diagnostics, gone func(Ref)) (*kube.Clients, bool) {
	var ref Ref
	if !cluster.IsNull() {
		var err error
		if ref, err = Resolve(cluster.ValueString(), project.ValueString(), location.ValueString(), c); err != nil {
			diags.AddAttributeError(path.Root("cluster"), "Cannot tell which cluster", err.Error())
			return nil, false
		}
	} else if !c.HasKubernetesBlock() {
		diags.AddAttributeError(path.Root("cluster"), "No cluster",
			NoClusterDetail)
		return nil, false
	}
	k, err := c.Kube(ctx, ref)
	if gone != nil && !cluster.IsNull() && gke.IsNotFound(err) {
		gone(ref)
		return nil, false
	}
	if err != nil {
		diags.AddError("connecting to Kubernetes", err.Error())
		return nil, false
	}
	return k, true
}

// KubeForRead is Kube for Read: when GKE no longer has the cluster, the objects went with it, so the resource
// leaves state (and is planned again) instead of failing every plan.
func KubeForRead(ctx context.Context, c Clients, cluster, project, location types.String, resp *resource.ReadResponse) (*kube.Clients, bool) {
	return ConnectKube(ctx, c, cluster, project, location, &resp.Diagnostics, func(ref Ref) {
		resp.Diagnostics.AddWarning("Cluster not found",
			fmt.Sprintf("GKE has no cluster %s any more; its Kubernetes objects went with it and will be planned again.", ref))
		resp.State.RemoveResource(ctx)
	})
}

// GKE resolves a cluster for a CRUD call and returns the GKE client; a resolution error is reported on attr.
func GKE(ctx context.Context, c Clients, cluster, project, location types.String, attr path.Path, diags *diag.Diagnostics) (*gke.Client, Ref, bool) {
	ref, err := Resolve(cluster.ValueString(), project.ValueString(), location.ValueString(), c)
	if err != nil {
		diags.AddAttributeError(attr, "Cannot tell which cluster", err.Error())
		return nil, ref, false
	}
	client, err := c.GKE(ctx)
	if err != nil {
		diags.AddError("connecting to GKE", err.Error())
		return nil, ref, false
	}
	return client, ref, true
}

// Clients is what resources get from the provider. It is an interface so a unit test can hand in its own.
type Clients interface {
	// GKE returns the GKE client, made on first use so that planning never needs credentials or the network.
	GKE(ctx context.Context) (*gke.Client, error)
	// Defaults are the provider's project and location, either possibly empty.
	Defaults() (project, location string)
	// Kube returns the Kubernetes clients of a cluster, made on first use.
	Kube(ctx context.Context, ref Ref) (*kube.Clients, error)
	// HasKubernetesBlock reports whether the provider names a Kubernetes cluster itself.
	HasKubernetesBlock() bool
}

// FromProviderData reads the provider's clients from a Configure request's ProviderData, which is nil until the
// provider itself is configured.
func FromProviderData(data any, diags *diag.Diagnostics) Clients {
	if data == nil {
		return nil
	}
	c, ok := data.(Clients)
	if !ok {
		diags.AddError("Unexpected Configure Type", fmt.Sprintf("Expected provider clients, got %T. Please report this issue to the provider developers.", data))
		return nil
	}
	return c
}

// At is the GKE cluster of the project whose endpoint is server (https://ENDPOINT); found is false when none
// is.
func At(ctx context.Context, c Clients, project, server string) (ref Ref, found bool, err error) {
	client, err := c.GKE(ctx)
	if err != nil {
		return Ref{}, false, fmt.Errorf("connecting to GKE: %w", err)
	}
	list, err := gke.Read(ctx, client, func(ctx context.Context) (*containerpb.ListClustersResponse, error) {
		return client.API().ListClusters(ctx, &containerpb.ListClustersRequest{Parent: fmt.Sprintf("projects/%s/locations/-", project)})
	})
	if err != nil {
		return Ref{}, false, fmt.Errorf("listing the clusters of project %s: %w", project, err)
	}
	for _, cl := range list.GetClusters() {
		if "https://"+cl.GetEndpoint() == server {
			return Ref{Project: project, Location: cl.GetLocation(), Name: cl.GetName()}, true, nil
		}
	}
	return Ref{}, false, nil
}
