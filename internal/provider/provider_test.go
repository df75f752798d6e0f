package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Every cluster-scoped resource takes its cluster attribute from the one scope: re-spelling the cluster (its id for
// its name) must replace none of them. A resource that grew its own copy once replaced every job and Kueue itself.
func TestEveryClusterScopedResourceSharesTheScope(t *testing.T) {
	t.Parallel()
	for _, newResource := range (&dwsProvider{}).Resources(context.Background()) {
		r := newResource()
		var meta resource.MetadataResponse
		r.Metadata(context.Background(), resource.MetadataRequest{ProviderTypeName: "dwsfallback"}, &meta)
		var resp resource.SchemaResponse
		r.Schema(context.Background(), resource.SchemaRequest{}, &resp)
		a, ok := resp.Schema.Attributes["cluster"].(schema.StringAttribute)
		if !ok {
			continue
		}
		if len(a.PlanModifiers) != 1 || !strings.Contains(a.PlanModifiers[0].Description(context.Background()), "when the cluster is a different one") {
			t.Errorf("%s: cluster's plan modifiers are not the cluster scope's", meta.TypeName)
			continue
		}
		for _, tc := range []struct {
			state, plan string
			replace     bool
		}{
			{"projects/p/locations/l/clusters/c", "c", false},
			{"c", "projects/p/locations/l/clusters/c", false},
			{"c", "d", true},
			{"projects/p/locations/l/clusters/c", "projects/q/locations/l/clusters/c", true},
		} {
			req := planmodifier.StringRequest{StateValue: types.StringValue(tc.state), PlanValue: types.StringValue(tc.plan), ConfigValue: types.StringValue(tc.plan)}
			req.State.Raw, req.Plan.Raw = nonNullRaw(), nonNullRaw()
			var out planmodifier.StringResponse
			a.PlanModifiers[0].PlanModifyString(context.Background(), req, &out)
			if out.RequiresReplace != tc.replace {
				t.Errorf("%s: cluster %q -> %q: replace = %v, want %v", meta.TypeName, tc.state, tc.plan, out.RequiresReplace, tc.replace)
			}
		}
	}
}

// nonNullRaw stands for a resource that exists in state and in the plan: RequiresReplaceIf skips creates and destroys.
func nonNullRaw() tftypes.Value {
	return tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}, map[string]tftypes.Value{})
}
