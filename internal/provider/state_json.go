package provider

import (
	"bytes"
	"encoding/json"
	"math/big"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// valueFromStateJSON decodes a resource's state as Terraform stores it (JSON) into a value of typ, as
// tftypes.ValueFromJSONWithOpts does with IgnoreUndefinedAttributes, in one pass. tftypes decodes every nested value
// again from its own bytes, token by token, which made the upgrade of each RayJob's state the provider's largest
// single cost in a plan of many jobs (bench/README.md). Only the JSON Terraform writes is taken: each value in its
// attribute's own JSON type. Anything else (a number written as a string, a dynamic or tuple type, bad JSON) returns
// false, and tftypes decodes it and words any error.
func valueFromStateJSON(typ tftypes.Type, raw []byte) (tftypes.Value, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil || dec.More() {
		return tftypes.Value{}, false
	}
	return valueFromJSON(typ, doc)
}

func valueFromJSON(typ tftypes.Type, x any) (tftypes.Value, bool) {
	if x == nil {
		return tftypes.NewValue(typ, nil), true
	}
	switch t := typ.(type) {
	case tftypes.Object:
		m, ok := x.(map[string]any)
		if !ok || len(t.OptionalAttributes) > 0 {
			return tftypes.Value{}, false
		}
		vals := make(map[string]tftypes.Value, len(t.AttributeTypes))
		for name, at := range t.AttributeTypes {
			v, ok := valueFromJSON(at, m[name]) // a missing attribute is null, as in tftypes
			if !ok {
				return tftypes.Value{}, false
			}
			vals[name] = v
		}
		return tftypes.NewValue(tftypes.Object{AttributeTypes: t.AttributeTypes}, vals), true
	case tftypes.Map:
		m, ok := x.(map[string]any)
		if !ok {
			return tftypes.Value{}, false
		}
		vals := make(map[string]tftypes.Value, len(m))
		for k, e := range m {
			v, ok := valueFromJSON(t.ElementType, e)
			if !ok {
				return tftypes.Value{}, false
			}
			vals[k] = v
		}
		return tftypes.NewValue(tftypes.Map{ElementType: t.ElementType}, vals), true
	case tftypes.List, tftypes.Set:
		l, ok := x.([]any)
		elem := elementType(t)
		if !ok || elem == nil {
			return tftypes.Value{}, false
		}
		vals := make([]tftypes.Value, len(l))
		for i, e := range l {
			if vals[i], ok = valueFromJSON(elem, e); !ok {
				return tftypes.Value{}, false
			}
		}
		if _, isSet := t.(tftypes.Set); isSet {
			return tftypes.NewValue(tftypes.Set{ElementType: elem}, vals), true
		}
		return tftypes.NewValue(tftypes.List{ElementType: elem}, vals), true
	}
	switch {
	case typ.Is(tftypes.String):
		s, ok := x.(string)
		return tftypes.NewValue(tftypes.String, s), ok
	case typ.Is(tftypes.Bool):
		b, ok := x.(bool)
		return tftypes.NewValue(tftypes.Bool, b), ok
	case typ.Is(tftypes.Number):
		n, ok := x.(json.Number)
		if !ok {
			return tftypes.Value{}, false
		}
		f, _, err := big.ParseFloat(string(n), 10, 512, big.ToNearestEven)
		if err != nil {
			return tftypes.Value{}, false
		}
		return tftypes.NewValue(tftypes.Number, f), true
	}
	return tftypes.Value{}, false
}

// elementType is the element type of a list or set, nil when it is dynamic (tftypes infers it from the elements).
func elementType(t tftypes.Type) tftypes.Type {
	var e tftypes.Type
	switch c := t.(type) {
	case tftypes.List:
		e = c.ElementType
	case tftypes.Set:
		e = c.ElementType
	}
	if e == nil || e.Is(tftypes.DynamicPseudoType) {
		return nil
	}
	return e
}
