package tfvalue

import (
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/attr"
)

// TakeChanged sets each attribute of the model dst points to where live differs from base to live's value, and
// reports whether any did. It is a Read's step from state to the live object: base is the state's own configuration
// read back the way live was, so both spell every value alike, and an attribute equal in both keeps what the state
// holds (its "2000m", not the read's "2"). Nested models are compared attribute by attribute; one present on one
// side only is taken whole. An attribute that neither side sets (a zero value) is left alone, and one that only live
// sets is taken, so that TakeChanged(dst, &Model{}, read) copies a whole read (an import). Only the fields FillScalars
// knows are compared: timeouts are never a read's.
func TakeChanged(dst, base, live any) bool {
	return takeChanged(reflect.ValueOf(dst).Elem(), reflect.ValueOf(base).Elem(), reflect.ValueOf(live).Elem())
}

func takeChanged(dst, base, live reflect.Value) bool {
	changed := false
	l := layoutOf(dst.Type())
	for _, f := range l.scalars {
		b, v := base.FieldByIndex(f.index), live.FieldByIndex(f.index)
		if b.IsZero() && v.IsZero() {
			continue
		}
		// A zero framework value has no type, so Equal calls it unlike even another zero value.
		bv, _ := b.Interface().(attr.Value) // layoutOf keeps only framework values
		vv, _ := v.Interface().(attr.Value)
		if b.IsZero() != v.IsZero() || !bv.Equal(vv) {
			dst.FieldByIndex(f.index).Set(v)
			changed = true
		}
	}
	for _, f := range l.nested {
		d, b, v := dst.FieldByIndex(f.index), base.FieldByIndex(f.index), live.FieldByIndex(f.index)
		switch {
		case b.IsNil() && v.IsNil():
		case b.IsNil() || v.IsNil():
			d.Set(v)
			changed = true
		default:
			into := reflect.New(b.Type().Elem())
			if d.IsNil() {
				into.Elem().Set(b.Elem())
			} else {
				into.Elem().Set(d.Elem())
			}
			if takeChanged(into.Elem(), b.Elem(), v.Elem()) {
				d.Set(into)
				changed = true
			}
		}
	}
	return changed
}
