package listing

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/identity"
)

var thing = identity.New("projects/{project}/locations/{location}/clusters/{cluster}/things/{name}", "{name}")

var thingSchema = schema.Schema{Attributes: map[string]schema.Attribute{"id": schema.StringAttribute{Computed: true}}}

// adopter answers each id's state, or a null one for the ids in gone.
type adopter struct{ gone map[string]bool }

func (a adopter) Adopt(ctx context.Context, _, id string) (tftypes.Value, diag.Diagnostics) {
	typ := thingSchema.Type().TerraformType(ctx)
	if a.gone[id] {
		return tftypes.NewValue(typ, nil), nil
	}
	return tftypes.NewValue(typ, map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, id)}), nil
}

type result struct {
	Name        string
	Identity    string
	Resource    string
	Diagnostics []string
}

func run(t *testing.T, find Finder, include bool, a Adopter) []result {
	t.Helper()
	ctx := context.Background()
	l := &listResource{kind: Kind{Name: "thing", Identity: thing, Find: find}, clients: noClients{}, adopter: a}
	req := list.ListRequest{IncludeResource: include, ResourceSchema: thingSchema, ResourceIdentitySchema: thing.Schema()}
	var stream list.ListResultsStream
	l.List(ctx, req, &stream)
	var out []result
	for r := range stream.Results {
		res := result{Name: r.DisplayName}
		for _, d := range r.Diagnostics {
			res.Diagnostics = append(res.Diagnostics, d.Summary())
		}
		if r.Identity != nil {
			res.Identity = r.Identity.Raw.String()
		}
		if r.Resource != nil && !r.Resource.Raw.IsNull() {
			res.Resource = r.Resource.Raw.String()
		}
		out = append(out, res)
	}
	return out
}

type noClients struct{ clusterscope.Clients }

func TestList(t *testing.T) {
	found := func(warn bool) Finder {
		return func(context.Context, clusterscope.Clients, tfsdk.Config, int64) ([]Found, diag.Diagnostics) {
			var diags diag.Diagnostics
			if warn {
				diags.AddWarning("some were not readable", "")
			}
			return []Found{{ID: "a", DisplayName: "a"}, {ID: "b", DisplayName: "b"}}, diags
		}
	}
	failed := func(context.Context, clusterscope.Clients, tfsdk.Config, int64) ([]Found, diag.Diagnostics) {
		var diags diag.Diagnostics
		diags.AddError("No cluster", "")
		return nil, diags
	}
	id := func(name string) string {
		return `tftypes.Object["cluster":tftypes.String, "location":tftypes.String, "name":tftypes.String, "project":tftypes.String]<"cluster":tftypes.String<null>, "location":tftypes.String<null>, "name":tftypes.String<"` + name + `">, "project":tftypes.String<null>>`
	}
	state := func(name string) string {
		return `tftypes.Object["id":tftypes.String]<"id":tftypes.String<"` + name + `">>`
	}
	cases := []struct {
		name    string
		find    Finder
		include bool
		gone    map[string]bool
		want    []result
	}{
		{"identities", found(false), false, nil, []result{{Name: "a", Identity: id("a")}, {Name: "b", Identity: id("b")}}},
		{"with the resources", found(false), true, nil, []result{
			{Name: "a", Identity: id("a"), Resource: state("a")}, {Name: "b", Identity: id("b"), Resource: state("b")}}},
		{"one gone before its read, and the warning goes with the next", found(true), true, map[string]bool{"a": true}, []result{
			{Name: "b", Identity: id("b"), Resource: state("b"), Diagnostics: []string{"some were not readable"}}}},
		{"a finder that fails", failed, false, nil, []result{{Diagnostics: []string{"No cluster"}}}},
		{"all gone: the warning stands alone", found(true), true, map[string]bool{"a": true, "b": true}, []result{
			{Diagnostics: []string{"some were not readable"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, run(t, tc.find, tc.include, adopter{gone: tc.gone})); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}
