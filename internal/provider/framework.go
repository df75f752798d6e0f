package provider

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Framework helpers: conversions between Terraform values and Go values that every resource uses, and the decoding of
// configurations whose values may still be unknown.

func stringMap(m types.Map) map[string]string {
	out := map[string]string{}
	for k, v := range m.Elements() {
		if s, ok := v.(types.String); ok {
			out[k] = s.ValueString()
		}
	}
	return out
}

func stringList(l types.List) []string {
	var out []string
	for _, v := range l.Elements() {
		if s, ok := v.(types.String); ok {
			out = append(out, s.ValueString())
		}
	}
	return out
}

func mapValue(m map[string]string) types.Map {
	if len(m) == 0 {
		return types.MapNull(types.StringType)
	}
	vals := map[string]attr.Value{}
	for k, v := range m {
		vals[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, vals)
}

func knownString(v types.String) string {
	if v.IsNull() || v.IsUnknown() {
		return ""
	}
	return v.ValueString()
}

func planEqualsState(plan tfsdk.Plan, state tfsdk.State) bool {
	return plan.Raw.Equal(state.Raw)
}

func timeoutsNull() timeouts.Value {
	return timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
		"create": types.StringType, "update": types.StringType, "delete": types.StringType,
	})}
}

func rayJobTimeoutsNull() timeouts.Value {
	return timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "delete": types.StringType})}
}

// providerClients reads the provider's clients from a Configure request's ProviderData, which is nil until the
// provider itself is configured.
func providerClients(data any, diags *diag.Diagnostics) clients {
	if data == nil {
		return nil
	}
	c, ok := data.(clients)
	if !ok {
		diags.AddError("Unexpected Configure Type", fmt.Sprintf("Expected provider clients, got %T. Please report this issue to the provider developers.", data))
		return nil
	}
	return c
}

func nilIfEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func because(msg string) string {
	if msg == "" {
		return ""
	}
	return " (" + msg + ")"
}

func orNone(s string) string {
	if s == "" {
		return "not started"
	}
	return s
}

func sameData(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Configurations are checked at validate and plan time, while a module variable, a concat() of them or another
// resource's attribute can still be unknown, at any depth. Decoding such a value into a Go slice or pointer fails,
// so checks decode what is known: every unknown value, however deep, reads as null, and unknowns says where they were
// so that a check tells "not known yet" from "not set". ModifyPlan runs the same checks again, and Terraform plans
// once more during apply with everything known.

// unknowns are the paths of the values that were unknown.
type unknowns []*tftypes.AttributePath

// at reports whether the value at attribute, then list index, then attribute (and so on) was unknown, or inside one
// that was.
func (u unknowns) at(steps ...any) bool {
	p := tftypes.NewAttributePath()
	for _, s := range steps {
		switch v := s.(type) {
		case string:
			p = p.WithAttributeName(v)
		case int:
			p = p.WithElementKeyInt(v)
		}
		for _, q := range u {
			if q.Equal(p) {
				return true
			}
		}
	}
	return false
}

// getKnown decodes config or plan data into target with unknown values read as null.
func getKnown(ctx context.Context, raw tftypes.Value, s tfsdk.Config, target any) (unknowns, diag.Diagnostics) {
	var u unknowns
	known, err := tftypes.Transform(raw, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsKnown() {
			u = append(u, p)
			return nullOf(v.Type()), nil
		}
		return v, nil
	})
	if err != nil {
		var d diag.Diagnostics
		d.AddError("reading the configuration", err.Error())
		return nil, d
	}
	s.Raw = known
	return u, s.Get(ctx, target)
}

// nullOf is the value an unknown one reads as. An object becomes an object of null attributes rather than a null
// object: an element of a list of nested objects ([local.a, var.b ? x : y]) decodes into a Go struct, which cannot
// hold a null.
func nullOf(t tftypes.Type) tftypes.Value {
	obj, ok := t.(tftypes.Object)
	if !ok {
		return tftypes.NewValue(t, nil)
	}
	attrs := make(map[string]tftypes.Value, len(obj.AttributeTypes))
	for name, at := range obj.AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
	}
	return tftypes.NewValue(t, attrs)
}

// knownConfig is getKnown of a ValidateConfig request's configuration.
func knownConfig(ctx context.Context, c tfsdk.Config, target any) (unknowns, diag.Diagnostics) {
	return getKnown(ctx, c.Raw, c, target)
}

// knownPlan is getKnown of a plan.
func knownPlan(ctx context.Context, p tfsdk.Plan, target any) (unknowns, diag.Diagnostics) {
	return getKnown(ctx, p.Raw, tfsdk.Config{Schema: p.Schema}, target)
}

type privateState interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// setPlanRoot sets a top-level attribute of a plan unless it already holds v. The framework's SetAttribute walks the
// schema and rewrites the whole value even when nothing changes, which a plan of N unchanged RayJobs paid several
// times per job.
func setPlanRoot(ctx context.Context, plan *tfsdk.Plan, name string, v attr.Value) diag.Diagnostics {
	if have, err := plan.Raw.ApplyTerraform5AttributePathStep(tftypes.AttributeName(name)); err == nil {
		if hv, ok := have.(tftypes.Value); ok {
			if want, err := v.ToTerraformValue(ctx); err == nil && want.Equal(hv) {
				return nil
			}
		}
	}
	return plan.SetAttribute(ctx, path.Root(name), v)
}

// rootString reads a top-level string attribute of a plan, configuration or state as GetAttribute would (null for a
// null object), without the framework's walk of the schema: ModifyPlan reads several for each of N jobs.
func rootString(raw tftypes.Value, name string) types.String {
	return rootAttr(raw, name, types.StringNull(), types.StringUnknown(), types.StringValue)
}

// rootBool is rootString for a bool.
func rootBool(raw tftypes.Value, name string) types.Bool {
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
