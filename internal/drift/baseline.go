package drift

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// Baseline is what a manager's write left on an object: the fields it set, and their values as the server stored
// them, defaults filled in. It is plain JSON for the caller to keep.
type Baseline struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Fields     json.RawMessage `json:"fields,omitempty"`
	Values     json.RawMessage `json:"values"`
	// Whole names top-level fields (e.g. "spec") that the manager writes whole, with an update: whatever another
	// writer adds under them, the manager's next write removes, so additions there are drift too.
	Whole []string `json:"whole,omitempty"`
}

// ErrNotManaged says the object holds no field of the manager: it was not written by it.
var ErrNotManaged = errors.New("no field of the object is the manager's")

// Record takes the baseline from the server's answer to a write: the manager's entries in its managedFields (an
// apply and an update entry are both the manager's), cut from the object itself.
func (t *Types) Record(obj map[string]any, manager string) (Baseline, error) {
	u := &unstructured.Unstructured{Object: obj}
	set, err := managerFields(u, manager)
	if err != nil {
		return Baseline{}, err
	}
	if set.Empty() {
		return Baseline{}, ErrNotManaged
	}
	return t.recordSet(obj, set)
}

// RecordWritten is Record for a writer that keeps no field manager of its own (Helm's client-side three-way merge
// names its writes after the running binary): the fields are those of what it wrote, written, and their values are
// the object's, as the server stored them.
func (t *Types) RecordWritten(obj, written map[string]any) (Baseline, error) {
	tv, err := t.typed(written)
	if err != nil {
		return Baseline{}, err
	}
	set, err := tv.ToFieldSet()
	if err != nil {
		return Baseline{}, err
	}
	// The object's identity is nobody's field, as in managedFields.
	set = set.Difference(fieldpath.NewSet(fieldpath.MakePathOrDie("apiVersion"), fieldpath.MakePathOrDie("kind"),
		fieldpath.MakePathOrDie("metadata", "name"), fieldpath.MakePathOrDie("metadata", "namespace")))
	if set.Empty() {
		return Baseline{}, ErrNotManaged
	}
	return t.recordSet(obj, set)
}

// recordSet is the baseline of the set's fields of obj.
func (t *Types) recordSet(obj map[string]any, set *fieldpath.Set) (Baseline, error) {
	u := &unstructured.Unstructured{Object: obj}
	tv, err := t.typed(obj)
	if err != nil {
		return Baseline{}, err
	}
	values, err := json.Marshal(extract(tv, set).AsValue().Unstructured())
	if err != nil {
		return Baseline{}, err
	}
	fields, err := set.ToJSON()
	if err != nil {
		return Baseline{}, err
	}
	return Baseline{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Fields: fields, Values: values}, nil
}

// RecordWhole is Record for an object whose top-level fields named in whole the manager writes whole: they are
// compared whole, what another writer adds under them included.
func (t *Types) RecordWhole(obj map[string]any, manager string, whole ...string) (Baseline, error) {
	b, err := t.Record(obj, manager)
	if err != nil {
		return b, err
	}
	values, err := b.Object()
	if err != nil {
		return b, err
	}
	for _, k := range whole {
		if v, ok := obj[k]; ok {
			values[k] = v
		}
	}
	if b.Values, err = json.Marshal(values); err != nil {
		return b, err
	}
	b.Whole = whole
	return b, nil
}

// RecordOnlyWhole is a baseline of the named top-level fields alone, all compared whole, without the API schema: for
// an object that is nothing but plain maps of strings (a ConfigMap's data), which the manager writes whole and whose
// every part another writer changes is drift.
func RecordOnlyWhole(obj map[string]any, whole ...string) (Baseline, error) {
	values := map[string]any{}
	for _, k := range whole {
		if v, ok := obj[k]; ok {
			values[k] = v
		}
	}
	raw, err := json.Marshal(values)
	if err != nil {
		return Baseline{}, err
	}
	u := &unstructured.Unstructured{Object: obj}
	return Baseline{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Values: raw, Whole: whole}, nil
}

// managerFields are the fields of the manager's entries in the object's managedFields (an apply and an update entry
// are both the manager's; a subresource's are not the object's).
func managerFields(u *unstructured.Unstructured, manager string) (*fieldpath.Set, error) {
	set := &fieldpath.Set{}
	for _, e := range u.GetManagedFields() {
		if e.Manager != manager || e.Subresource != "" || e.FieldsV1 == nil {
			continue
		}
		s := &fieldpath.Set{}
		if err := s.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
			return nil, fmt.Errorf("reading the managed fields of %s: %w", manager, err)
		}
		set = set.Union(s)
	}
	return set, nil
}

// Diff names every field of the baseline whose live value is not the one the write left: changed, removed, or (in
// an atomic list or map, which compares whole) added to. Paths are given in structured-merge-diff's notation, e.g.
// `.spec.stopPolicy` or `.spec.resourceGroups`, outermost first; what is under a named path is not named again.
func (t *Types) Diff(b Baseline, live map[string]any) ([]string, error) {
	if b.onlyWhole() {
		return diffOnlyWhole(b, live)
	}
	set := &fieldpath.Set{}
	if err := set.FromJSON(bytes.NewReader(b.Fields)); err != nil {
		return nil, fmt.Errorf("reading the baseline's fields: %w", err)
	}
	if unchanged(b, set, live) {
		return nil, nil
	}
	var base map[string]any
	if err := json.Unmarshal(b.Values, &base); err != nil {
		return nil, fmt.Errorf("reading the baseline's values: %w", err)
	}
	if base == nil {
		base = map[string]any{}
	}
	base["apiVersion"], base["kind"] = b.APIVersion, b.Kind
	was, err := t.typed(base)
	if err != nil {
		return nil, err
	}
	now, err := t.typed(withoutRecords(live, set))
	if err != nil {
		return nil, err
	}
	wasX, nowX := extract(was, set), extract(now, set)
	c, err := wasX.Compare(nowX)
	if err != nil {
		return nil, fmt.Errorf("comparing %s with its baseline: %w", b.Kind, err)
	}
	paths := outermost(c.Modified.Union(c.Removed).Union(c.Added))
	paths = slices.DeleteFunc(paths, func(p fieldpath.Path) bool {
		return slices.ContainsFunc(b.Whole, func(k string) bool { return p.String() == "."+k || under(p.String(), "."+k) })
	})
	// A field the API replaces whole (a list of worker groups) is one path; the parts of it that differ say more.
	wasU, _ := wasX.AsValue().Unstructured().(map[string]any)
	nowU, _ := nowX.AsValue().Unstructured().(map[string]any)
	var out []string
	for _, p := range paths {
		_, wv, _ := resolve(wasU, p)
		_, nv, _ := resolve(nowU, p)
		parts := within(wv, nv, "")
		if len(parts) == 0 || len(parts) > maxParts {
			out = append(out, p.String())
			continue
		}
		for _, part := range parts {
			out = append(out, p.String()+" "+part)
		}
	}
	if len(b.Whole) > 0 {
		for _, k := range b.Whole {
			out = append(out, wholeDiff(k, base[k], live[k])...)
		}
		sort.Strings(out)
	}
	return out, nil
}

// onlyWhole says whether b is a baseline of RecordOnlyWhole (kept as JSON, its missing fields may read back null).
func (b Baseline) onlyWhole() bool {
	return len(b.Fields) == 0 || string(b.Fields) == "null"
}

// diffOnlyWhole is Diff for a baseline of RecordOnlyWhole: it needs no schema, so t may be nil.
func diffOnlyWhole(b Baseline, live map[string]any) ([]string, error) {
	var base map[string]any
	if err := json.Unmarshal(b.Values, &base); err != nil {
		return nil, fmt.Errorf("reading the baseline's values: %w", err)
	}
	var out []string
	for _, k := range b.Whole {
		out = append(out, wholeDiff(k, base[k], live[k])...)
	}
	sort.Strings(out)
	return out, nil
}

// wholeDiff names what differs under a field compared whole: by its keys, down to the first list, whose part that
// differs is named as a JSON pointer after the list's path (as for a list the API replaces whole).
func wholeDiff(key string, was, now any) []string {
	if sameJSON(was, now) {
		return nil
	}
	var out []string
	for _, part := range within(was, now, "") {
		p, w, n := "."+key, was, now
		segs := strings.Split(strings.TrimPrefix(part, "/"), "/")
		i := 0
		for ; i < len(segs); i++ {
			if isList(w) || isList(n) {
				break
			}
			seg := strings.NewReplacer("~1", "/", "~0", "~").Replace(segs[i])
			p += "." + seg
			w, n = child(w, seg), child(n, seg)
		}
		if i < len(segs) {
			p += " /" + strings.Join(segs[i:], "/")
		}
		out = append(out, p)
	}
	if len(out) == 0 || len(out) > maxParts {
		return []string{"." + key} // past maxParts, the field alone says enough
	}
	return out
}

func isList(v any) bool {
	_, ok := v.([]any)
	return ok
}

func child(v any, key string) any {
	m, _ := v.(map[string]any)
	return m[key]
}

// withoutRecords is live without its metadata.managedFields, and without its status where the baseline has no field
// of it (a status subresource's writes are never the object's): no manager's write of the object owns either, and
// they are the largest parts of a live object, which typing it would only walk. A shallow copy: live is not changed.
func withoutRecords(live map[string]any, set *fieldpath.Set) map[string]any {
	out := make(map[string]any, len(live))
	for k, v := range live {
		out[k] = v
	}
	status := "status"
	if set.WithPrefix(fieldpath.PathElement{FieldName: &status}).Empty() && !set.Has(fieldpath.MakePathOrDie(status)) {
		delete(out, status)
	}
	if md, ok := live["metadata"].(map[string]any); ok {
		m := make(map[string]any, len(md))
		for k, v := range md {
			if k != "managedFields" {
				m[k] = v
			}
		}
		out["metadata"] = m
	}
	return out
}

// maxParts bounds how many parts of one field are named: past that, the field alone says enough.
const maxParts = 4

// extract cuts tv to the set's fields. By its leaves, as client-go's ExtractInto does: structured-merge-diff keeps
// nothing under a path that is itself in the set (a managedFields "." entry) when given the whole set. The fields
// that name a keyed item are kept with it, so that the item is the same item.
func extract(tv *typed.TypedValue, set *fieldpath.Set) *typed.TypedValue {
	return tv.ExtractItems(set.Leaves(), typed.WithAppendKeyFields())
}

func (t *Types) typed(obj map[string]any) (*typed.TypedValue, error) {
	u := &unstructured.Unstructured{Object: obj}
	tv, err := t.tc.ObjectToTyped(u, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("reading %s %s against the API schema: %w", u.GetKind(), u.GetName(), err)
	}
	return tv, nil
}

// outermost lists the set's paths without those under another path of it, in the order of their names.
func outermost(s *fieldpath.Set) []fieldpath.Path {
	var all []fieldpath.Path
	s.Iterate(func(p fieldpath.Path) { all = append(all, p.Copy()) })
	sort.Slice(all, func(i, j int) bool { return all[i].String() < all[j].String() })
	var out []fieldpath.Path
	for _, p := range all {
		if !slices.ContainsFunc(out, func(parent fieldpath.Path) bool { return under(p.String(), parent.String()) }) {
			out = append(out, p)
		}
	}
	return out
}

func under(p, parent string) bool {
	if !strings.HasPrefix(p, parent) || len(p) == len(parent) {
		return false
	}
	c := p[len(parent)]
	return c == '.' || c == '['
}
