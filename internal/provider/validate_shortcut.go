package provider

import (
	"context"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// validateShortcut validates a resource's configuration as the framework's ValidateResourceConfig does, calling the
// same validators with the same requests, but reading each attribute's value in one walk of the configuration. The
// framework looks every attribute up from the root (building the schema's attribute map at each step) and walks the
// whole value once more for collection blocks: 7% of the machine's samples in a 100-job plan, where Terraform
// validates each job's configuration again as it plans it (bench/README.md). It answers only what it can answer
// exactly; anything else (a read-only attribute set, a required one missing, a deprecated one used, a value it cannot
// convert) returns ok false, and the framework answers, in its own words. validate_shortcut_diff_test.go holds it
// to the framework's answers.
type validateShortcut struct {
	schema      schema.Schema
	attrs       []validateNode
	newResource func() resource.Resource
	// unsupported names the first schema feature the walk does not reproduce; the framework then validates.
	unsupported string
}

type validateNode struct {
	name     string
	attr     schema.Attribute
	typ      attr.Type
	children []validateNode // of a single nested attribute
}

func newValidateShortcut(ctx context.Context, newResource func() resource.Resource, sch schema.Schema) *validateShortcut {
	vs := &validateShortcut{schema: sch, newResource: newResource}
	switch {
	case len(sch.Blocks) > 0:
		vs.unsupported = "blocks" // the framework turns empty list and set blocks into null ones first
	case sch.DeprecationMessage != "":
		vs.unsupported = "deprecated resource"
	}
	vs.attrs = vs.nodes(ctx, "", sch.Attributes)
	return vs
}

func (vs *validateShortcut) nodes(ctx context.Context, prefix string, attrs map[string]schema.Attribute) []validateNode {
	names := slices.Sorted(maps.Keys(attrs))
	out := make([]validateNode, 0, len(attrs))
	for _, name := range names {
		a := attrs[name]
		n := validateNode{name: name, attr: a, typ: a.GetType()}
		if why := unsupportedForValidation(ctx, a, n.typ); why != "" && vs.unsupported == "" {
			vs.unsupported = prefix + name + ": " + why
		}
		if sn, ok := a.(schema.SingleNestedAttribute); ok {
			ov, ok := sn.GetNestedObject().(interface{ ObjectValidators() []validator.Object })
			if (!ok || len(ov.ObjectValidators()) > 0) && vs.unsupported == "" {
				vs.unsupported = prefix + name + ": nested object validators"
			}
			n.children = vs.nodes(ctx, prefix+name+".", sn.Attributes)
		}
		out = append(out, n)
	}
	return out
}

func unsupportedForValidation(ctx context.Context, a schema.Attribute, typ attr.Type) string {
	switch a.(type) {
	case schema.StringAttribute, schema.BoolAttribute, schema.Int64Attribute, schema.ListAttribute, schema.MapAttribute,
		schema.SingleNestedAttribute:
	default:
		return "attribute kind"
	}
	if a.IsWriteOnly() {
		return "write-only"
	}
	if !a.IsRequired() && !a.IsOptional() && !a.IsComputed() {
		return "neither required, optional nor computed"
	}
	if _, err := typ.ValueFromTerraform(ctx, tftypes.NewValue(typ.TerraformType(ctx), nil)); err != nil {
		return err.Error()
	}
	return ""
}

// validate answers req, or returns ok false for the framework to answer it.
func (vs *validateShortcut) validate(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest, typ tftypes.Type, providerData any) (*tfprotov6.ValidateResourceConfigResponse, bool) {
	if vs.unsupported != "" || req.Config == nil {
		return nil, false
	}
	val, err := req.Config.Unmarshal(typ)
	if err != nil || val.IsNull() || !val.IsKnown() {
		return nil, false
	}
	config := tfsdk.Config{Raw: val, Schema: vs.schema}
	var diags diag.Diagnostics
	r := vs.newResource()
	if rc, ok := r.(resource.ResourceWithConfigure); ok {
		var cr resource.ConfigureResponse
		rc.Configure(ctx, resource.ConfigureRequest{ProviderData: providerData}, &cr)
		if len(cr.Diagnostics) > 0 {
			return nil, false
		}
	}
	caps := resource.ValidateConfigClientCapabilities{}
	if req.ClientCapabilities != nil {
		caps.WriteOnlyAttributesAllowed = req.ClientCapabilities.WriteOnlyAttributesAllowed
	}
	vreq := resource.ValidateConfigRequest{ClientCapabilities: caps, Config: config}
	if rv, ok := r.(resource.ResourceWithConfigValidators); ok {
		for _, v := range rv.ConfigValidators(ctx) {
			var vr resource.ValidateConfigResponse
			v.ValidateResource(ctx, vreq, &vr)
			diags.Append(vr.Diagnostics...)
		}
	}
	if rv, ok := r.(resource.ResourceWithValidateConfig); ok {
		var vr resource.ValidateConfigResponse
		rv.ValidateConfig(ctx, vreq, &vr)
		diags.Append(vr.Diagnostics...)
	}
	w := validateWalk{ctx: ctx, config: config, caps: validator.ValidateSchemaClientCapabilities{WriteOnlyAttributesAllowed: caps.WriteOnlyAttributesAllowed}}
	if !w.object(vs.attrs, val, path.Empty(), path.Expression{}, &diags) {
		return nil, false
	}
	out, ok := protoDiagnostics(ctx, diags)
	if !ok {
		return nil, false
	}
	return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: out}, true
}

type validateWalk struct {
	ctx    context.Context
	config tfsdk.Config
	caps   validator.ValidateSchemaClientCapabilities
}

// object validates the attributes of a known, non-null object value at p (the root when p is empty).
func (w validateWalk) object(nodes []validateNode, obj tftypes.Value, p path.Path, pe path.Expression, diags *diag.Diagnostics) bool {
	var vals map[string]tftypes.Value
	if err := obj.As(&vals); err != nil {
		return false
	}
	for i := range nodes {
		n := &nodes[i]
		raw, found := vals[n.name]
		if !found {
			return false
		}
		ap, ape := p.AtName(n.name), pe.AtName(n.name)
		if len(p.Steps()) == 0 {
			ap, ape = path.Root(n.name), path.MatchRoot(n.name)
		}
		if !w.attribute(n, raw, ap, ape, diags) {
			return false
		}
	}
	return true
}

func (w validateWalk) attribute(n *validateNode, raw tftypes.Value, p path.Path, pe path.Expression, diags *diag.Diagnostics) bool {
	null, unknown := raw.IsNull(), !raw.IsKnown()
	a := n.attr
	if (a.IsComputed() && !a.IsOptional() && !null) || (a.IsRequired() && null) ||
		(a.GetDeprecationMessage() != "" && !null && !unknown) {
		return false // the framework's own diagnostics
	}
	v, err := n.typ.ValueFromTerraform(w.ctx, raw)
	if err != nil {
		return false
	}
	// The value's or its type's own check, as the framework makes when it reads the value; an error there ends the
	// attribute's validation.
	var own diag.Diagnostics
	if va, ok := v.(xattr.ValidateableAttribute); ok {
		var resp xattr.ValidateAttributeResponse
		va.ValidateAttribute(w.ctx, xattr.ValidateAttributeRequest{Path: p}, &resp)
		own = resp.Diagnostics
	} else if tv, ok := n.typ.(xattr.TypeWithValidate); ok { //nolint:staticcheck // the framework still calls it
		own = tv.Validate(w.ctx, raw, p)
	}
	diags.Append(own...)
	if own.HasError() {
		return true
	}
	if !w.validators(a, v, p, pe, diags) {
		return false
	}
	if n.children == nil || null || unknown {
		return true
	}
	return w.object(n.children, raw, p, pe, diags)
}

// validators runs the attribute's own validators, as the framework's AttributeValidate<Type> does.
func (w validateWalk) validators(a schema.Attribute, v attr.Value, p path.Path, pe path.Expression, diags *diag.Diagnostics) bool {
	ctx, caps, config := w.ctx, w.caps, w.config
	switch a := a.(type) {
	case schema.StringAttribute:
		return runValidators(ctx, v, basetypes.StringValuable.ToStringValue, a.StringValidators(), diags,
			func(x validator.String, cv basetypes.StringValue) diag.Diagnostics {
				var r validator.StringResponse
				x.ValidateString(ctx, validator.StringRequest{ClientCapabilities: caps, Config: config, ConfigValue: cv, Path: p, PathExpression: pe}, &r)
				return r.Diagnostics
			})
	case schema.BoolAttribute:
		return runValidators(ctx, v, basetypes.BoolValuable.ToBoolValue, a.BoolValidators(), diags,
			func(x validator.Bool, cv basetypes.BoolValue) diag.Diagnostics {
				var r validator.BoolResponse
				x.ValidateBool(ctx, validator.BoolRequest{ClientCapabilities: caps, Config: config, ConfigValue: cv, Path: p, PathExpression: pe}, &r)
				return r.Diagnostics
			})
	case schema.Int64Attribute:
		return runValidators(ctx, v, basetypes.Int64Valuable.ToInt64Value, a.Int64Validators(), diags,
			func(x validator.Int64, cv basetypes.Int64Value) diag.Diagnostics {
				var r validator.Int64Response
				x.ValidateInt64(ctx, validator.Int64Request{ClientCapabilities: caps, Config: config, ConfigValue: cv, Path: p, PathExpression: pe}, &r)
				return r.Diagnostics
			})
	case schema.ListAttribute:
		return runValidators(ctx, v, basetypes.ListValuable.ToListValue, a.ListValidators(), diags,
			func(x validator.List, cv basetypes.ListValue) diag.Diagnostics {
				var r validator.ListResponse
				x.ValidateList(ctx, validator.ListRequest{ClientCapabilities: caps, Config: config, ConfigValue: cv, Path: p, PathExpression: pe}, &r)
				return r.Diagnostics
			})
	case schema.MapAttribute:
		return runValidators(ctx, v, basetypes.MapValuable.ToMapValue, a.MapValidators(), diags,
			func(x validator.Map, cv basetypes.MapValue) diag.Diagnostics {
				var r validator.MapResponse
				x.ValidateMap(ctx, validator.MapRequest{ClientCapabilities: caps, Config: config, ConfigValue: cv, Path: p, PathExpression: pe}, &r)
				return r.Diagnostics
			})
	case schema.SingleNestedAttribute:
		return runValidators(ctx, v, basetypes.ObjectValuable.ToObjectValue, a.ObjectValidators(), diags,
			func(x validator.Object, cv basetypes.ObjectValue) diag.Diagnostics {
				var r validator.ObjectResponse
				x.ValidateObject(ctx, validator.ObjectRequest{ClientCapabilities: caps, Config: config, ConfigValue: cv, Path: p, PathExpression: pe}, &r)
				return r.Diagnostics
			})
	}
	return false
}

// runValidators converts v to the validators' value type and runs each with a response of its own; false when the
// conversion fails, which the framework words.
func runValidators[VV any, V any, X any](ctx context.Context, v attr.Value, to func(VV, context.Context) (V, diag.Diagnostics),
	xs []X, diags *diag.Diagnostics, run func(X, V) diag.Diagnostics) bool {
	vv, ok := v.(VV)
	if !ok {
		return false
	}
	cv, d := to(vv, ctx)
	if d.HasError() {
		return false
	}
	diags.Append(d...)
	for _, x := range xs {
		diags.Append(run(x, cv)...)
	}
	return true
}

// protoDiagnostics converts diagnostics as the framework's server does; ok is false for a path it would report
// a conversion error for.
func protoDiagnostics(ctx context.Context, diags diag.Diagnostics) ([]*tfprotov6.Diagnostic, bool) {
	var out []*tfprotov6.Diagnostic
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Detail: d.Detail(), Summary: d.Summary()}
		switch d.Severity() {
		case diag.SeverityError:
			pd.Severity = tfprotov6.DiagnosticSeverityError
		case diag.SeverityWarning:
			pd.Severity = tfprotov6.DiagnosticSeverityWarning
		default:
			pd.Severity = tfprotov6.DiagnosticSeverityInvalid
		}
		if dp, ok := d.(diag.DiagnosticWithPath); ok {
			steps := make([]tftypes.AttributePathStep, 0, len(dp.Path().Steps()))
			for _, s := range dp.Path().Steps() {
				switch s := s.(type) {
				case path.PathStepAttributeName:
					steps = append(steps, tftypes.AttributeName(string(s)))
				case path.PathStepElementKeyInt:
					steps = append(steps, tftypes.ElementKeyInt(int64(s)))
				case path.PathStepElementKeyString:
					steps = append(steps, tftypes.ElementKeyString(string(s)))
				case path.PathStepElementKeyValue:
					tv, err := s.ToTerraformValue(ctx)
					if err != nil {
						return nil, false
					}
					steps = append(steps, tftypes.ElementKeyValue(tv))
				default:
					return nil, false
				}
			}
			pd.Attribute = tftypes.NewAttributePathWithSteps(steps)
		}
		out = append(out, pd)
	}
	return out, true
}
