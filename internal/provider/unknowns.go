package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

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

// under reports whether any value at or below the path (attribute, then list index, ...) was unknown, or one above it.
func (u unknowns) under(steps ...any) bool {
	if u.at(steps...) {
		return true
	}
	p := tftypes.NewAttributePath()
	for _, s := range steps {
		switch v := s.(type) {
		case string:
			p = p.WithAttributeName(v)
		case int:
			p = p.WithElementKeyInt(v)
		}
	}
	n := len(p.Steps())
	for _, q := range u {
		if len(q.Steps()) > n && tftypes.NewAttributePathWithSteps(q.Steps()[:n]).Equal(p) {
			return true
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
