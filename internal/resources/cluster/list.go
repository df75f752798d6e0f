package cluster

import (
	"context"
	"fmt"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/listing"
)

// ListKind is the cluster's list resource: the GKE clusters of a project in one location, or in every location with
// "-".
func ListKind() listing.Kind {
	return listing.Kind{
		Name:     "cluster",
		Identity: clusterIdentity,
		Unscoped: true,
		Attributes: map[string]listschema.Attribute{
			"project":  listschema.StringAttribute{Optional: true, MarkdownDescription: "Project to list. Defaults to the provider's."},
			"location": listschema.StringAttribute{Optional: true, MarkdownDescription: "Location (zone or region) to list, or `-` for every location (GKE's own wildcard). Defaults to the provider's."},
		},
		Find: findClusters,
	}
}

func findClusters(ctx context.Context, c clusterscope.Clients, cfg tfsdk.Config, limit int64) ([]listing.Found, diag.Diagnostics) {
	var diags diag.Diagnostics
	var project, location types.String
	if !listing.Strings(ctx, cfg, &diags, map[string]*types.String{"project": &project, "location": &location}) {
		return nil, diags
	}
	defProject, defLocation := c.Defaults()
	p, l := project.ValueString(), location.ValueString()
	if p == "" {
		p = defProject
	}
	if l == "" {
		l = defLocation
	}
	if p == "" || l == "" {
		diags.AddError("Where to list", "Set project and location, on the list block or the provider.")
		return nil, diags
	}
	client, err := c.GKE(ctx)
	if err != nil {
		diags.AddError("connecting to GKE", err.Error())
		return nil, diags
	}
	parent := fmt.Sprintf("projects/%s/locations/%s", p, l)
	resp, err := gke.Read(ctx, client, func(ctx context.Context) (*containerpb.ListClustersResponse, error) {
		return client.API().ListClusters(ctx, &containerpb.ListClustersRequest{Parent: parent})
	})
	if err != nil {
		diags.AddError("listing clusters of "+parent, err.Error())
		return nil, diags
	}
	if mz := resp.GetMissingZones(); len(mz) > 0 {
		diags.AddWarning("Some zones did not answer",
			fmt.Sprintf("GKE could not reach zones %s: their clusters are not in this list. List again later.", strings.Join(mz, ", ")))
	}
	var found []listing.Found
	for _, cl := range resp.GetClusters() {
		ref := clusterscope.Ref{Project: p, Location: cl.GetLocation(), Name: cl.GetName()}
		if ref.Location == "" {
			ref.Location = l
		}
		found = append(found, listing.Found{ID: ref.String(), DisplayName: cl.GetName() + " (" + ref.Location + ")"})
		if limit > 0 && int64(len(found)) >= limit {
			break
		}
	}
	return found, diags
}
