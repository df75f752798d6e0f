package drift

import (
	"bytes"
	"encoding/json"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// unchanged says, without the API schema, that live holds the baseline's values at every one of its fields: live cut
// to the set's leaves (as extract cuts a typed value) is, as JSON, the baseline's values. Typing a large object
// (a RayJob inlines two pod templates) costs milliseconds, and a refresh compares every object; most have not
// changed. It answers true only where the bytes agree, so any doubt (an item found in another order, a number spelt
// otherwise) falls through to the typed comparison, never to "no drift".
func unchanged(b Baseline, set *fieldpath.Set, live map[string]any) bool {
	got, _ := cut(live, set).(map[string]any)
	// A field written whole is kept whole, as RecordWhole keeps it.
	for _, k := range b.Whole {
		if v, ok := live[k]; ok {
			got[k] = v
		} else {
			delete(got, k)
		}
	}
	raw, err := json.Marshal(got)
	return err == nil && bytes.Equal(raw, b.Values)
}

// cut is v cut to the leaves of s: a map's fields by name, a keyed list's items by their key fields (which stay with
// the item, as typed.WithAppendKeyFields keeps them), a set's items by value, an atomic list's by index; in the
// order v holds them. A path that names something v lacks is left out.
func cut(v any, s *fieldpath.Set) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for pe := range s.Members.All() {
			if pe.FieldName == nil {
				continue
			}
			if _, hasChildren := s.Children.Get(pe); hasChildren {
				continue // a member with children is no leaf: its children say what of it is the writer's
			}
			if fv, ok := v[*pe.FieldName]; ok {
				out[*pe.FieldName] = fv
			}
		}
		for pe := range s.Children.All() {
			if pe.FieldName == nil {
				continue
			}
			child, _ := s.Children.Get(pe)
			if fv, ok := v[*pe.FieldName]; ok {
				out[*pe.FieldName] = cut(fv, child)
			}
		}
		return out
	case []any:
		out := []any{}
		for i, item := range v {
			if pe, whole := matching(s, i, item); whole {
				out = append(out, item)
			} else if pe != nil {
				child, _ := s.Children.Get(*pe)
				c := cut(item, child)
				src, isMap := item.(map[string]any)
				if m, ok := c.(map[string]any); ok && isMap && pe.Key != nil {
					for _, f := range *pe.Key {
						m[f.Name] = src[f.Name]
					}
				}
				out = append(out, c)
			}
		}
		return out
	}
	return v
}

// matching finds the path element of s that names item (the i-th of its list): whole when it is a leaf member, else
// the element whose children cut it; nil when s names it not at all.
func matching(s *fieldpath.Set, i int, item any) (*fieldpath.PathElement, bool) {
	names := func(pe fieldpath.PathElement) bool {
		switch {
		case pe.Index != nil:
			return *pe.Index == i
		case pe.Value != nil:
			return value.Equals(value.NewValueInterface(item), *pe.Value)
		case pe.Key != nil:
			m, ok := item.(map[string]any)
			if !ok {
				return false
			}
			for _, f := range *pe.Key {
				fv, ok := m[f.Name]
				if !ok || !value.Equals(value.NewValueInterface(fv), f.Value) {
					return false
				}
			}
			return true
		}
		return false
	}
	// Iterate, not All: All's iterator of this structured-merge-diff version goes on after its loop body stops it.
	var found *fieldpath.PathElement
	s.Children.Iterate(func(pe fieldpath.PathElement) {
		if found == nil && names(pe) {
			found = &pe
		}
	})
	if found != nil {
		return found, false
	}
	s.Members.Iterate(func(pe fieldpath.PathElement) {
		if found == nil && names(pe) {
			found = &pe
		}
	})
	return found, found != nil
}
