package tfvalue

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Configurations are checked at validate and plan time, while a module variable, a concat() of them or another
// resource's attribute can still be unknown, at any depth. Decoding such a value into a Go slice or pointer fails,
// so checks decode what is known: every unknown value, however deep, reads as null, and Unknowns says where they were
// so that a check tells "not known yet" from "not set". ModifyPlan runs the same checks again, and Terraform plans
// once more during apply with everything known.

// Unknowns are the paths of the values that were unknown.
type Unknowns []*tftypes.AttributePath

// At reports whether the value At attribute, then list index, then attribute (and so on) was unknown, or inside one
// that was.
func (u Unknowns) At(steps ...any) bool {
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

// Under reports whether any value at or below the path (attribute, then list index, ...) was unknown, or one above it.
func (u Unknowns) Under(steps ...any) bool {
	if u.At(steps...) {
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

// GetKnown decodes config or plan data into target with unknown values read as null.
func GetKnown(ctx context.Context, raw tftypes.Value, s tfsdk.Config, target any) (Unknowns, diag.Diagnostics) {
	var u Unknowns
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

// KnownConfig is GetKnown of a ValidateConfig request's configuration.
func KnownConfig(ctx context.Context, c tfsdk.Config, target any) (Unknowns, diag.Diagnostics) {
	return GetKnown(ctx, c.Raw, c, target)
}

// KnownPlan is GetKnown of a plan.
func KnownPlan(ctx context.Context, p tfsdk.Plan, target any) (Unknowns, diag.Diagnostics) {
	return GetKnown(ctx, p.Raw, tfsdk.Config{Schema: p.Schema}, target)
}
