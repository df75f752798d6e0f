package tfvalue

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// PlanEqualsState reports whether a plan changes nothing of the state.
func PlanEqualsState(plan tfsdk.Plan, state tfsdk.State) bool {
	return plan.Raw.Equal(state.Raw)
}

// SetPlanRoot sets a top-level attribute of a plan unless it already holds v. The framework's SetAttribute walks the
// schema and rewrites the whole value even when nothing changes, which a plan of N unchanged RayJobs paid several
// times per job.
func SetPlanRoot(ctx context.Context, plan *tfsdk.Plan, name string, v attr.Value) diag.Diagnostics {
	if have, err := plan.Raw.ApplyTerraform5AttributePathStep(tftypes.AttributeName(name)); err == nil {
		if hv, ok := have.(tftypes.Value); ok {
			if want, err := v.ToTerraformValue(ctx); err == nil && want.Equal(hv) {
				return nil
			}
		}
	}
	return plan.SetAttribute(ctx, path.Root(name), v)
}

// RootString reads a top-level string attribute of a plan, configuration or state as GetAttribute would (null for a
// null object), without the framework's walk of the schema: ModifyPlan reads several for each of N jobs.
func RootString(raw tftypes.Value, name string) types.String {
	return rootAttr(raw, name, types.StringNull(), types.StringUnknown(), types.StringValue)
}

// RootBool is RootString for a bool.
func RootBool(raw tftypes.Value, name string) types.Bool {
	return rootAttr(raw, name, types.BoolNull(), types.BoolUnknown(), types.BoolValue)
}

func rootAttr[T any, V any](raw tftypes.Value, name string, null, unknown V, known func(T) V) V {
	v, ok := rootValue(raw, name)
	switch {
	case !ok || v.IsNull():
		return null
	case !v.IsKnown():
		return unknown
	}
	var x T
	_ = v.As(&x)
	return known(x)
}

func rootValue(raw tftypes.Value, name string) (tftypes.Value, bool) {
	if raw.IsNull() || !raw.IsKnown() {
		return tftypes.Value{}, false
	}
	got, err := raw.ApplyTerraform5AttributePathStep(tftypes.AttributeName(name))
	v, ok := got.(tftypes.Value)
	return v, err == nil && ok
}
