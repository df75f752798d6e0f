package rayjob

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/listing"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// ListKind is the RayJob's list resource: the jobs of a namespace, or of one of its Kueue LocalQueues.
func ListKind() listing.Kind {
	return listing.Kind{
		Name:     "rayjob",
		Identity: rayJobIdentity,
		Attributes: map[string]listschema.Attribute{
			"namespace": listschema.StringAttribute{Required: true, MarkdownDescription: "Namespace of the jobs."},
			"queue": listschema.StringAttribute{Optional: true,
				MarkdownDescription: "Only the jobs submitted to this Kueue LocalQueue (their `" + wellknown.QueueNameLabel + "` label)."},
		},
		Find: findRayJobs,
	}
}

func findRayJobs(ctx context.Context, c clusterscope.Clients, cfg tfsdk.Config, limit int64) ([]listing.Found, diag.Diagnostics) {
	var diags diag.Diagnostics
	var ns, queue types.String
	if !listing.Strings(ctx, cfg, &diags, map[string]*types.String{"namespace": &ns, "queue": &queue}) {
		return nil, diags
	}
	k, prefix, ok := listing.Connect(ctx, c, cfg, &diags)
	if !ok {
		return nil, diags
	}
	selector := ""
	if !queue.IsNull() {
		selector = wellknown.QueueNameLabel + "=" + queue.ValueString()
	}
	names, err := listing.Names(ctx, selector, limit, listing.ObjectsPage(k.Ray.RayV1().RayJobs(ns.ValueString()).List))
	if err != nil {
		diags.AddError("listing RayJobs", err.Error())
		return nil, diags
	}
	found := make([]listing.Found, 0, len(names))
	for _, n := range names {
		id := ns.ValueString() + "/" + n
		if prefix != "" {
			id = prefix + "namespaces/" + ns.ValueString() + "/rayJobs/" + n
		}
		found = append(found, listing.Found{ID: id, DisplayName: ns.ValueString() + "/" + n})
	}
	return found, diags
}
