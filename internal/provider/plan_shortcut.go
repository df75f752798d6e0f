package provider

import (
	"context"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// planShortcut answers PlanResourceChange for a resource whose proposed state is its prior state, with the framework's
// own answer but without its walks over the schema. The framework would, in order: apply the Default of every
// attribute the configuration leaves null, run the attribute plan modifiers, then the resource's ModifyPlan. So the
// shortcut checks the first itself (prior equals the default wherever the configuration is null), knows the second
// to be a no-op (only modifiers that do nothing on an unchanged value are allowed; a type with any other is not
// short-cut at all), and runs the third, the resource's own ModifyPlan, as the framework would. Any difference, any
// diagnostic, any replacement sends the request to the framework. plan_shortcut_diff_test.go holds it to the framework's
// answers on generated cases.
type planShortcut struct {
	schema      schema.Schema
	newResource func() resource.Resource
	// identity is the resource's identity schema, or nil.
	identity *identityschema.Schema
	// defaults maps a schema path (attribute names joined by ".", "*" for an element) to its Default's value.
	defaults map[string]tftypes.Value
	// unsupported says why the type is never short-cut (a plan modifier or default the shortcut cannot account for).
	unsupported string
}

// newPlanShortcut reads what the shortcut needs of a resource's schema.
func newPlanShortcut(ctx context.Context, newResource func() resource.Resource) (*planShortcut, string) {
	r := newResource()
	var md resource.MetadataResponse
	r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "dwsfallback"}, &md)
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	ps := &planShortcut{schema: sr.Schema, newResource: newResource, defaults: map[string]tftypes.Value{}}
	if ri, ok := r.(resource.ResourceWithIdentity); ok {
		var ir resource.IdentitySchemaResponse
		ri.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &ir)
		ps.identity = &ir.IdentitySchema
	}
	if sr.Diagnostics.HasError() {
		ps.unsupported = "schema error"
		return ps, md.TypeName
	}
	ps.walk(ctx, "", sr.Schema.Attributes, sr.Schema.Blocks)
	return ps, md.TypeName
}

func (ps *planShortcut) walk(ctx context.Context, prefix string, attrs map[string]schema.Attribute, blocks map[string]schema.Block) {
	for name, a := range attrs {
		key := prefix + name
		if why := unsupportedModifiers(a); why != "" && ps.unsupported == "" {
			ps.unsupported = key + ": " + why
		}
		if v, ok, err := defaultValue(ctx, a); err != nil {
			ps.unsupported = key + ": default " + err.Error()
		} else if ok {
			ps.defaults[key] = v
		}
		switch n := a.(type) {
		case schema.SingleNestedAttribute:
			ps.walk(ctx, key+".", n.Attributes, nil)
		case schema.ListNestedAttribute:
			ps.nested(ctx, key, n.NestedObject.Attributes, n.NestedObject)
		case schema.MapNestedAttribute:
			ps.nested(ctx, key, n.NestedObject.Attributes, n.NestedObject)
		case schema.SetNestedAttribute:
			// Terraform matches set elements by value, which a path-wise check cannot follow.
			ps.nested(ctx, key, n.NestedObject.Attributes, n.NestedObject)
			if ps.hasDefaultUnder(key+".*.") && ps.unsupported == "" {
				ps.unsupported = key + ": defaults inside a set"
			}
		}
	}
	for name, b := range blocks {
		key := prefix + name
		if why := unsupportedModifiers(b); why != "" && ps.unsupported == "" {
			ps.unsupported = key + ": " + why
		}
		switch n := b.(type) {
		case schema.SingleNestedBlock:
			ps.walk(ctx, key+".", n.Attributes, n.Blocks)
		case schema.ListNestedBlock:
			ps.walk(ctx, key+".*.", n.NestedObject.Attributes, n.NestedObject.Blocks)
		default:
			if ps.unsupported == "" {
				ps.unsupported = key + ": block kind"
			}
		}
	}
}

func (ps *planShortcut) nested(ctx context.Context, key string, attrs map[string]schema.Attribute, obj any) {
	if why := unsupportedModifiers(obj); why != "" && ps.unsupported == "" {
		ps.unsupported = key + ": " + why
	}
	ps.walk(ctx, key+".*.", attrs, nil)
}

func (ps *planShortcut) hasDefaultUnder(prefix string) bool {
	for k := range ps.defaults {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// noOpModifiers are the framework's plan modifiers that change nothing when the planned value equals the prior one
// and is known: the RequiresReplace family returns early on equal values, UseStateForUnknown on known ones.
var noOpModifiers = []string{"requiresReplace", "useStateForUnknown", "useNonNullStateForUnknown"}

// unsupportedModifiers names a plan modifier of an attribute, block or nested object that is not one of noOpModifiers.
func unsupportedModifiers(x any) string {
	v := reflect.ValueOf(x)
	if v.Kind() != reflect.Struct {
		return ""
	}
	f := v.FieldByName("PlanModifiers")
	if !f.IsValid() || f.Kind() != reflect.Slice {
		return ""
	}
	for i := range f.Len() {
		m := f.Index(i).Elem()
		t := m.Type()
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		known := strings.HasPrefix(t.PkgPath(), "github.com/hashicorp/terraform-plugin-framework/resource/schema/")
		if known {
			known = false
			for _, n := range noOpModifiers {
				if strings.HasPrefix(t.Name(), n) {
					known = true
				}
			}
		}
		if !known {
			return "plan modifier " + t.String()
		}
	}
	return ""
}

// defaultValue is an attribute's Default as a Terraform value, if it has one.
func defaultValue(ctx context.Context, a schema.Attribute) (tftypes.Value, bool, error) {
	var v attr.Value
	p := path.Empty()
	switch d := a.(type) {
	case interface{ StringDefaultValue() defaults.String }:
		if dv := d.StringDefaultValue(); dv != nil {
			var r defaults.StringResponse
			dv.DefaultString(ctx, defaults.StringRequest{Path: p}, &r)
			v = r.PlanValue
		}
	case interface{ BoolDefaultValue() defaults.Bool }:
		if dv := d.BoolDefaultValue(); dv != nil {
			var r defaults.BoolResponse
			dv.DefaultBool(ctx, defaults.BoolRequest{Path: p}, &r)
			v = r.PlanValue
		}
	case interface{ Int64DefaultValue() defaults.Int64 }:
		if dv := d.Int64DefaultValue(); dv != nil {
			var r defaults.Int64Response
			dv.DefaultInt64(ctx, defaults.Int64Request{Path: p}, &r)
			v = r.PlanValue
		}
	case interface{ Int32DefaultValue() defaults.Int32 }:
		if dv := d.Int32DefaultValue(); dv != nil {
			var r defaults.Int32Response
			dv.DefaultInt32(ctx, defaults.Int32Request{Path: p}, &r)
			v = r.PlanValue
		}
	case interface{ Float64DefaultValue() defaults.Float64 }:
		if dv := d.Float64DefaultValue(); dv != nil {
			var r defaults.Float64Response
			dv.DefaultFloat64(ctx, defaults.Float64Request{Path: p}, &r)
			v = r.PlanValue
		}
	case interface{ Float32DefaultValue() defaults.Float32 }:
		if dv := d.Float32DefaultValue(); dv != nil {
			var r defaults.Float32Response
			dv.DefaultFloat32(ctx, defaults.Float32Request{Path: p}, &r)
			v = r.PlanValue
		}
	case interface{ NumberDefaultValue() defaults.Number }:
		if dv := d.NumberDefaultValue(); dv != nil {
			var r defaults.NumberResponse
			dv.DefaultNumber(ctx, defaults.NumberRequest{Path: p}, &r)
			v = r.PlanValue
		}
	case interface{ ListDefaultValue() defaults.List }:
		if dv := d.ListDefaultValue(); dv != nil {
			var r defaults.ListResponse
			dv.DefaultList(ctx, defaults.ListRequest{Path: p}, &r)
			v = r.PlanValue
		}
	case interface{ MapDefaultValue() defaults.Map }:
		if dv := d.MapDefaultValue(); dv != nil {
			var r defaults.MapResponse
			dv.DefaultMap(ctx, defaults.MapRequest{Path: p}, &r)
			v = r.PlanValue
		}
	case interface{ SetDefaultValue() defaults.Set }:
		if dv := d.SetDefaultValue(); dv != nil {
			var r defaults.SetResponse
			dv.DefaultSet(ctx, defaults.SetRequest{Path: p}, &r)
			v = r.PlanValue
		}
	case interface{ ObjectDefaultValue() defaults.Object }:
		if dv := d.ObjectDefaultValue(); dv != nil {
			var r defaults.ObjectResponse
			dv.DefaultObject(ctx, defaults.ObjectRequest{Path: p}, &r)
			v = r.PlanValue
		}
	case interface{ DynamicDefaultValue() defaults.Dynamic }:
		if d.DynamicDefaultValue() != nil {
			return tftypes.Value{}, false, errUnsupportedDefault
		}
	}
	if v == nil {
		return tftypes.Value{}, false, nil
	}
	tv, err := v.ToTerraformValue(ctx)
	return tv, err == nil, err
}

type shortcutError string

func (e shortcutError) Error() string { return string(e) }

const errUnsupportedDefault = shortcutError("of a dynamic attribute")

// defaultsHold reports whether applying the Defaults leaves prior as it is: wherever config is null, prior already
// holds the default. config must be wholly known.
func (ps *planShortcut) defaultsHold(prior, config tftypes.Value) bool {
	if len(ps.defaults) == 0 {
		return true
	}
	hold := true
	_ = tftypes.Walk(prior, func(p *tftypes.AttributePath, v tftypes.Value) (bool, error) {
		if !hold {
			return false, nil
		}
		d, ok := ps.defaults[schemaKey(p)]
		if !ok {
			return true, nil
		}
		c, _, err := tftypes.WalkAttributePath(config, p)
		cv, isValue := c.(tftypes.Value)
		if (err != nil || !isValue || cv.IsNull()) && !v.Equal(d) {
			hold = false
		}
		return true, nil
	})
	return hold
}

// schemaKey is a value's path as a defaults key: attribute names, "*" for an element.
func schemaKey(p *tftypes.AttributePath) string {
	var b strings.Builder
	for i, s := range p.Steps() {
		if i > 0 {
			b.WriteByte('.')
		}
		if a, ok := s.(tftypes.AttributeName); ok {
			b.WriteString(string(a))
		} else {
			b.WriteByte('*')
		}
	}
	return b.String()
}

// unchanged reports whether the framework would plan prior itself, with no diagnostics and nothing to replace.
func (ps *planShortcut) unchanged(ctx context.Context, data any, req *tfprotov6.PlanResourceChangeRequest, typ tftypes.Type) bool {
	prior, err := req.PriorState.Unmarshal(typ)
	if err != nil || prior.IsNull() {
		return false
	}
	config, err := req.Config.Unmarshal(typ)
	if err != nil || config.IsNull() || !config.IsFullyKnown() || !ps.defaultsHold(prior, config) {
		return false
	}
	r := ps.newResource()
	if rc, ok := r.(resource.ResourceWithConfigure); ok {
		var resp resource.ConfigureResponse
		rc.Configure(ctx, resource.ConfigureRequest{ProviderData: data}, &resp)
		if resp.Diagnostics.HasError() {
			return false
		}
	}
	mp, ok := r.(resource.ResourceWithModifyPlan)
	if !ok {
		return true
	}
	plan := tfsdk.Plan{Schema: ps.schema, Raw: prior}
	mreq := resource.ModifyPlanRequest{
		Config: tfsdk.Config{Schema: ps.schema, Raw: config},
		Plan:   plan,
		State:  tfsdk.State{Schema: ps.schema, Raw: prior},
	}
	mresp := resource.ModifyPlanResponse{Plan: plan, RequiresReplace: path.Paths{}}
	// The framework plans the prior identity unless ModifyPlan sets another: one that sets any is not short-cut.
	var untouched tftypes.Value
	if ps.identity != nil {
		untouched = tftypes.NewValue(ps.identity.Type().TerraformType(ctx), nil)
		mresp.Identity = &tfsdk.ResourceIdentity{Schema: *ps.identity, Raw: untouched}
	}
	mp.ModifyPlan(ctx, mreq, &mresp)
	if mresp.Identity != nil && !mresp.Identity.Raw.Equal(untouched) {
		return false
	}
	return len(mresp.Diagnostics) == 0 && len(mresp.RequiresReplace) == 0 && mresp.Deferred == nil && mresp.Plan.Raw.Equal(prior)
}
