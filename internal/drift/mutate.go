package drift

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Mutation is one change another writer could make to a field a manager owns, as a JSON patch (RFC 6902); one that
// changes or removes a single value first tests that it is the value it starts from.
type Mutation struct {
	Path string // the field, in structured-merge-diff's notation
	// Inside is the JSON pointer of the part changed within a field the API replaces whole; empty for the field.
	Inside string
	// Shape is Inside with the index of each unnamed list item written as "*" (a named one, by "name" or
	// "groupName", keeps its name): the parts of a whole field that differ only in which of like items they are in.
	Shape string
	What  string // "remove", "change", or "add an item"
	Patch []byte
}

// ShapeKey groups the changes inside a field the API replaces whole that take one path through a comparison: the
// API, and a comparison that follows it, sees such a field as one value, so a change to the third rule of a role
// takes the path a change to the first took, and a generated test of every item costs a plan each and finds nothing
// more. Items with names are kept apart, as a comparison may match them by name (a RayJob's worker groups). Empty for
// a change of the manager's own field, which is tried on its own.
func (m Mutation) ShapeKey() string {
	if m.Inside == "" {
		return ""
	}
	return m.Path + " " + m.Shape + " " + m.What
}

// Mutations lists, for every leaf field of manager's on obj (taken from obj's own managedFields), its removal,
// another value of the same JSON type, and for a list or map, an extra item. They are what a generated drift test
// tries; whether the API accepts each one is for the API to say. The fields that name a keyed list's item are left
// alone: changing one makes another item, not another value.
func Mutations(obj map[string]any, manager string) ([]Mutation, error) {
	set, err := managerFields(&unstructured.Unstructured{Object: obj}, manager)
	if err != nil {
		return nil, err
	}
	return mutations(obj, set)
}

// BaselineMutations is Mutations for the fields of a baseline, with the values the manager wrote: what another
// writer added since (Kueue's keys on an admitted job's templates) is not the manager's to change.
// For a baseline of RecordOnlyWhole, they are the changes of each field it holds and of every part of it.
func BaselineMutations(b Baseline) ([]Mutation, error) {
	obj, err := b.Object()
	if err != nil {
		return nil, err
	}
	if b.onlyWhole() {
		var out []Mutation
		for _, k := range b.Whole {
			if v, ok := obj[k]; ok {
				if err := changesOf("."+k, "/"+k, "", "", v, &out); err != nil {
					return nil, err
				}
			}
		}
		return out, nil
	}
	set := &fieldpath.Set{}
	if err := set.FromJSON(bytes.NewReader(b.Fields)); err != nil {
		return nil, err
	}
	return mutations(obj, set)
}

func mutations(obj map[string]any, set *fieldpath.Set) ([]Mutation, error) {
	var out []Mutation
	var ferr error
	set.Leaves().Iterate(func(p fieldpath.Path) {
		if ferr != nil || keyField(p) {
			return
		}
		ptr, v, ok := resolve(obj, p)
		if !ok {
			return
		}
		ferr = changesOf(p.String(), ptr, "", "", v, &out)
	})
	return out, ferr
}

// changesOf adds the changes of the value v at ptr, then of everything inside it: a list or map the API replaces
// whole (a pod template's tolerations inside an atomic list of worker groups) is one field of the manager's, and
// each of its parts is a change another writer can make. Those are named by the field and the JSON pointer inside
// it.
func changesOf(field, ptr, inside, shape string, v any, out *[]Mutation) error {
	add := func(what string, op map[string]any) error {
		ops := []map[string]any{op}
		switch v.(type) {
		case map[string]any, []any:
			// Another writer may have added to it (Kueue to an admitted job's template): the change applies to
			// whatever is there.
		default:
			ops = []map[string]any{{"op": "test", "path": ptr, "value": v}, op}
		}
		b, err := json.Marshal(ops)
		if err != nil {
			return err
		}
		*out = append(*out, Mutation{Path: field, Inside: inside, Shape: shape, What: what, Patch: b})
		return nil
	}
	if !emptyComposite(v) { // removing an empty map or list changes nothing another writer could mean
		if err := add("remove", map[string]any{"op": "remove", "path": ptr}); err != nil {
			return err
		}
	}
	if other, ok := otherValue(v); ok {
		if err := add("change", map[string]any{"op": "replace", "path": ptr, "value": other}); err != nil {
			return err
		}
	}
	switch t := v.(type) {
	case []any:
		if len(t) > 0 {
			if err := add("add an item", map[string]any{"op": "add", "path": ptr + "/-", "value": extraItem(t[len(t)-1])}); err != nil {
				return err
			}
		}
		for i, item := range t {
			if err := changesOf(field, ptr+"/"+strconv.Itoa(i), inside+"/"+strconv.Itoa(i), shape+"/"+itemShape(item), item, out); err != nil {
				return err
			}
		}
	case map[string]any:
		if err := add("add an item", map[string]any{"op": "add", "path": ptr + "/drift-test", "value": extraItem(firstValue(t))}); err != nil {
			return err
		}
		for _, k := range sortedKeys(t) {
			esc := strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
			if err := changesOf(field, ptr+"/"+esc, inside+"/"+esc, shape+"/"+esc, t[k], out); err != nil {
				return err
			}
		}
	}
	return nil
}

// itemShape is how a list item shows in a Shape: by its name where it has one, else as any item.
func itemShape(item any) string {
	if m, ok := item.(map[string]any); ok {
		for _, k := range []string{"name", "groupName"} {
			if n, ok := m[k].(string); ok {
				return "[" + k + "=" + n + "]"
			}
		}
	}
	return "*"
}

// keyField says whether p ends at a field that names its keyed list item.
func keyField(p fieldpath.Path) bool {
	n := len(p)
	if n < 2 || p[n-1].FieldName == nil || p[n-2].Key == nil {
		return false
	}
	for _, k := range *p[n-2].Key {
		if k.Name == *p[n-1].FieldName {
			return true
		}
	}
	return false
}

// resolve finds p in obj: its JSON pointer and its value.
func resolve(obj map[string]any, p fieldpath.Path) (string, any, bool) {
	var ptr strings.Builder
	var cur any = obj
	for _, pe := range p {
		switch {
		case pe.FieldName != nil:
			m, ok := cur.(map[string]any)
			if !ok {
				return "", nil, false
			}
			if cur, ok = m[*pe.FieldName]; !ok {
				return "", nil, false
			}
			ptr.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(*pe.FieldName))
		default:
			l, ok := cur.([]any)
			if !ok {
				return "", nil, false
			}
			i := index(l, pe)
			if i < 0 {
				return "", nil, false
			}
			cur = l[i]
			ptr.WriteString("/" + strconv.Itoa(i))
		}
	}
	return ptr.String(), cur, true
}

func index(l []any, pe fieldpath.PathElement) int {
	for i, item := range l {
		switch {
		case pe.Index != nil:
			if i == *pe.Index {
				return i
			}
		case pe.Value != nil:
			if reflect.DeepEqual(item, (*pe.Value).Unstructured()) {
				return i
			}
		case pe.Key != nil:
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			match := true
			for _, k := range *pe.Key {
				if !reflect.DeepEqual(normalNumber(m[k.Name]), normalNumber(k.Value.Unstructured())) {
					match = false
				}
			}
			if match {
				return i
			}
		}
	}
	return -1
}

// normalNumber makes JSON's float64 and structured-merge-diff's int64 comparable.
func normalNumber(v any) any {
	switch n := v.(type) {
	case float64:
		return n
	case int64:
		return float64(n)
	case int:
		return float64(n)
	}
	return v
}

// otherValue is a value of v's JSON type that is not v: a number one more (a quantity written as digits too), a
// string with a suffix, a boolean negated.
func otherValue(v any) (any, bool) {
	switch t := v.(type) {
	case string:
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return strconv.FormatInt(n+1, 10), true
		}
		return t + "x", true
	case bool:
		return !t, true
	case float64:
		return t + 1, true
	case int64:
		return t + 1, true
	}
	return nil, false
}

// extraItem is an item like like, but another: a list of objects gets a copy with each string changed.
func extraItem(like any) any {
	switch t := like.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, v := range t {
			if o, ok := otherValue(v); ok {
				if _, isString := v.(string); isString {
					out[k] = o
					continue
				}
			}
			out[k] = v
		}
		return out
	case nil:
		return "drift-test"
	}
	if o, ok := otherValue(like); ok {
		return o
	}
	return like
}

func firstValue(m map[string]any) any {
	for _, k := range sortedKeys(m) {
		return m[k]
	}
	return nil
}

// String names the mutation for a test log.
func (m Mutation) String() string {
	if m.Inside != "" {
		return fmt.Sprintf("%s %s %s", m.What, m.Path, m.Inside)
	}
	return fmt.Sprintf("%s %s", m.What, m.Path)
}

func emptyComposite(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}
