//go:build !nohelm

package kueueinstall

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/helm"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/listing"
)

// kueueChartName is the name in Kueue's Chart.yaml, whichever registry or folder the chart came from.
const kueueChartName = "kueue"

// ListKind is the Kueue install's list resource: the cluster's Helm releases of Kueue's chart, as `helm install`
// (the tutorial's step 5) or this resource made them.
func ListKind() listing.Kind {
	return listing.Kind{
		Name:     "kueue_install",
		Identity: kueueInstallIdentity,
		Attributes: map[string]listschema.Attribute{
			"namespace": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only the releases in this namespace. Every namespace's by default."},
		},
		Find: findInstalls,
	}
}

func findInstalls(ctx context.Context, c clusterscope.Clients, cfg tfsdk.Config, limit int64) ([]listing.Found, diag.Diagnostics) {
	var diags diag.Diagnostics
	var ns types.String
	if !listing.Strings(ctx, cfg, &diags, map[string]*types.String{"namespace": &ns}) {
		return nil, diags
	}
	k, prefix, ok := listing.Connect(ctx, c, cfg, &diags)
	if !ok {
		return nil, diags
	}
	rels, err := helm.Releases(k.Config, ns.ValueString(), kueueChartName)
	if err != nil {
		detail := err.Error()
		if ns.ValueString() == "" && apierrors.IsForbidden(err) {
			detail += "\n\nListing every namespace reads Helm's release Secrets across the cluster; with access to one namespace only, set namespace."
		}
		diags.AddError("listing Helm releases", detail)
		return nil, diags
	}
	var found []listing.Found
	for _, r := range rels {
		if limit > 0 && int64(len(found)) >= limit {
			break
		}
		id := r.Namespace + "/" + r.Name
		if prefix != "" {
			id = prefix + "helmReleases/" + id
		}
		status := ""
		if r.Info != nil {
			status = ", " + r.Info.Status.String()
		}
		found = append(found, listing.Found{ID: id,
			DisplayName: fmt.Sprintf("%s/%s (Kueue %s%s)", r.Namespace, r.Name, r.Chart.Metadata.Version, status)})
	}
	return found, diags
}
