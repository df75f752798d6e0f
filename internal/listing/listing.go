// Package listing makes the provider's list resources (Terraform 1.14's `terraform query`). A kind says how to find
// the ids of its objects in a cluster; listing gives each found object its identity and, when Terraform asks for
// the resource (include_resource), the state an import of that id makes: the resource's own ImportState and Read,
// through the provider's protocol server, so that configuration generated from a list plans only the import.
package listing

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/identity"
)

// Found is one object a kind found.
type Found struct {
	ID          string
	DisplayName string
}

// Finder finds the objects a list's configuration asks for, at most limit of them when limit is above 0.
type Finder func(ctx context.Context, c clusterscope.Clients, cfg tfsdk.Config, limit int64) ([]Found, diag.Diagnostics)

// Adopter imports an object by id as `terraform import` would, and returns the state Read leaves: null when the
// object is gone.
type Adopter interface {
	Adopt(ctx context.Context, typeName, id string) (tftypes.Value, diag.Diagnostics)
}

// Kind is one list resource.
type Kind struct {
	// Name is the managed resource's type name without the provider's prefix ("rayjob").
	Name     string
	Identity identity.Spec
	// Attributes are the list block's own, beside the cluster scope's (ScopeAttributes) unless Unscoped.
	Attributes map[string]listschema.Attribute
	Unscoped   bool
	Find       Finder
}

// New makes the list resource of a kind.
func New(k Kind) func() list.ListResource {
	return func() list.ListResource { return &listResource{kind: k} }
}

var (
	_ list.ListResource              = (*listResource)(nil)
	_ list.ListResourceWithConfigure = (*listResource)(nil)
)

type listResource struct {
	kind    Kind
	clients clusterscope.Clients
	adopter Adopter
}

func (l *listResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + l.kind.Name
}

func (l *listResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	attrs := map[string]listschema.Attribute{}
	if !l.kind.Unscoped {
		attrs = ScopeAttributes()
	}
	for n, a := range l.kind.Attributes {
		attrs[n] = a
	}
	resp.Schema = listschema.Schema{Attributes: attrs}
}

func (l *listResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.clients = clusterscope.FromProviderData(req.ProviderData, &resp.Diagnostics)
	l.adopter, _ = req.ProviderData.(Adopter)
}

func (l *listResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var diags diag.Diagnostics
	if l.clients == nil {
		diags.AddError("Provider not configured", "The provider has no clients yet: configure it before listing.")
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	// Finding pool pairs and reading each read the same pools: once.
	ctx = gke.WithPoolSnapshot(ctx)
	found, diags := l.kind.Find(ctx, l.clients, req.Config, req.Limit)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	// Metadata's request is not at hand here; the provider's type name prefix is fixed.
	typeName := "dwsfallback_" + l.kind.Name
	stream.Results = func(push func(list.ListResult) bool) {
		warnings := diags // what Find warned of goes with the first result
		for _, f := range found {
			res := req.NewListResult(ctx)
			res.DisplayName = f.DisplayName
			res.Diagnostics.Append(warnings...)
			res.Diagnostics.Append(l.kind.Identity.Set(res.Identity, f.ID)...)
			if req.IncludeResource && !res.Diagnostics.HasError() {
				if l.adopter == nil {
					res.Diagnostics.AddError("Cannot read the resource", "The provider cannot import objects here.")
				} else {
					v, d := l.adopter.Adopt(ctx, typeName, f.ID)
					res.Diagnostics.Append(d...)
					if !d.HasError() && v.IsNull() {
						continue // deleted between the list and its read: nothing to adopt
					}
					if !d.HasError() {
						res.Resource.Raw = v
					}
				}
			}
			warnings = nil
			if !push(res) {
				return
			}
		}
		if len(warnings) > 0 { // nothing found, or all gone: the warnings stand alone
			push(list.ListResult{Diagnostics: warnings})
		}
	}
}

// ScopeAttributes are the cluster, project and location of a list: the cluster to look in, as the resources name
// it; left out under the provider's kubernetes block.
func ScopeAttributes() map[string]listschema.Attribute {
	return map[string]listschema.Attribute{
		"cluster": listschema.StringAttribute{Optional: true,
			MarkdownDescription: "The GKE cluster to list in: its name, or its id `projects/PROJECT/locations/LOCATION/clusters/NAME`. Required unless the provider has a `kubernetes` block."},
		"project":  listschema.StringAttribute{Optional: true, MarkdownDescription: "Project of the cluster. Defaults to the cluster id's, then the provider's."},
		"location": listschema.StringAttribute{Optional: true, MarkdownDescription: "Location of the cluster. Defaults to the cluster id's, then the provider's."},
	}
}

// Strings reads the list configuration's string attributes into their variables, by name; false when one could
// not be read (the reason is in diags).
func Strings(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics, attrs map[string]*types.String) bool {
	for name, v := range attrs {
		diags.Append(cfg.GetAttribute(ctx, path.Root(name), v)...)
	}
	return !diags.HasError()
}

// Scope is a list configuration's cluster: its resolved ref (zero under the kubernetes block) and the prefix of
// the ids of objects in it ("" under the kubernetes block, else the cluster's id and "/").
func Scope(ctx context.Context, c clusterscope.Clients, cfg tfsdk.Config, diags *diag.Diagnostics) (ref clusterscope.Ref, prefix string, ok bool) {
	var cluster, project, location types.String
	if !Strings(ctx, cfg, diags, map[string]*types.String{"cluster": &cluster, "project": &project, "location": &location}) {
		return ref, "", false
	}
	if cluster.IsNull() {
		if !c.HasKubernetesBlock() {
			diags.AddError("No cluster", clusterscope.NoClusterDetail)
			return ref, "", false
		}
		return ref, "", true
	}
	ref, err := clusterscope.Resolve(cluster.ValueString(), project.ValueString(), location.ValueString(), c)
	if err != nil {
		diags.AddError("Cannot tell which cluster", err.Error())
		return ref, "", false
	}
	return ref, fmt.Sprintf("%s/", ref), true
}
