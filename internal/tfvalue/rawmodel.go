package tfvalue

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// FillScalars sets the string, bool, number, map and list-of-scalar fields of a model (and of the structs it embeds)
// from an object value, by their tfsdk tags, and its pointers to nested models (nil for a null object), recursively.
// Other fields (timeouts) stay zero. It is for the hot paths: the framework's State.Get reflects over every field and
// compiles a regexp per field on each call (bench/README.md), which a refresh of N RayJobs pays N times. The field
// layout is worked out once per type.
func FillScalars(ctx context.Context, v tftypes.Value, dst any) bool {
	return fillValue(ctx, v, reflect.ValueOf(dst).Elem())
}

func fillValue(ctx context.Context, v tftypes.Value, rv reflect.Value) bool {
	var attrs map[string]tftypes.Value
	if v.IsNull() || !v.IsKnown() || v.As(&attrs) != nil {
		return false
	}
	for _, f := range nestedFieldsOf(rv.Type()) {
		a, ok := attrs[f.name]
		if !ok || !a.IsKnown() {
			return false
		}
		field := rv.FieldByIndex(f.index)
		if a.IsNull() {
			field.Set(reflect.Zero(field.Type()))
			continue
		}
		ptr := reflect.New(field.Type().Elem())
		if !fillValue(ctx, a, ptr.Elem()) {
			return false
		}
		field.Set(ptr)
	}
	for _, f := range scalarFieldsOf(rv.Type()) {
		a, ok := attrs[f.name]
		if !ok {
			return false
		}
		typ := attrType(a.Type())
		if typ == nil {
			return false
		}
		val, err := typ.ValueFromTerraform(ctx, a)
		if err != nil {
			return false
		}
		out := reflect.ValueOf(val)
		field := rv.FieldByIndex(f.index)
		if !out.Type().AssignableTo(field.Type()) {
			return false
		}
		field.Set(out)
	}
	return true
}

// SetScalars is FillScalars' inverse: v with the scalar attributes src holds.
func SetScalars(ctx context.Context, v tftypes.Value, src any) (tftypes.Value, error) {
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		return v, err
	}
	rv := reflect.ValueOf(src).Elem()
	for _, f := range scalarFieldsOf(rv.Type()) {
		a, ok := rv.FieldByIndex(f.index).Interface().(attr.Value)
		if !ok {
			return v, fmt.Errorf("%s is not a framework value", f.name)
		}
		tv, err := a.ToTerraformValue(ctx)
		if err != nil {
			return v, err
		}
		attrs[f.name] = tv
	}
	if err := tftypes.ValidateValue(v.Type(), attrs); err != nil {
		return v, err // NewValue would panic
	}
	return tftypes.NewValue(v.Type(), attrs), nil
}

type scalarField struct {
	name  string
	index []int
}

// fieldLayout is a model type's tagged fields, worked out once per type: the scalar ones and the pointers to nested
// models.
type fieldLayout struct{ scalars, nested []scalarField }

var layouts struct {
	sync.Mutex
	of map[reflect.Type]fieldLayout
}

var scalarTypes = map[reflect.Type]bool{
	reflect.TypeFor[types.String](): true, reflect.TypeFor[types.Bool](): true, reflect.TypeFor[types.Int64](): true,
	reflect.TypeFor[types.Map](): true, reflect.TypeFor[types.List](): true,
}

func layoutOf(t reflect.Type) fieldLayout {
	layouts.Lock()
	defer layouts.Unlock()
	if l, ok := layouts.of[t]; ok {
		return l
	}
	if layouts.of == nil {
		layouts.of = map[reflect.Type]fieldLayout{}
	}
	var l fieldLayout
	for _, f := range reflect.VisibleFields(t) {
		tag := f.Tag.Get("tfsdk")
		switch {
		case tag == "" || tag == "-":
		case scalarTypes[f.Type]:
			l.scalars = append(l.scalars, scalarField{name: tag, index: f.Index})
		case f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct:
			l.nested = append(l.nested, scalarField{name: tag, index: f.Index})
		}
	}
	layouts.of[t] = l
	return l
}

func scalarFieldsOf(t reflect.Type) []scalarField { return layoutOf(t).scalars }

func nestedFieldsOf(t reflect.Type) []scalarField { return layoutOf(t).nested }

// attrType is the framework type of a scalar or a map of scalars; nil for anything else.
func attrType(t tftypes.Type) attr.Type {
	switch {
	case t.Is(tftypes.String):
		return types.StringType
	case t.Is(tftypes.Bool):
		return types.BoolType
	case t.Is(tftypes.Number):
		return types.Int64Type
	}
	if m, ok := t.(tftypes.Map); ok {
		if _, nested := m.ElementType.(tftypes.Map); !nested {
			if elem := attrType(m.ElementType); elem != nil {
				return types.MapType{ElemType: elem}
			}
		}
	}
	if l, ok := t.(tftypes.List); ok && (l.ElementType.Is(tftypes.String) || l.ElementType.Is(tftypes.Bool) || l.ElementType.Is(tftypes.Number)) {
		return types.ListType{ElemType: attrType(l.ElementType)}
	}
	return nil
}
