package drift

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// within names, as JSON pointers, the parts of two values that differ: keys and indexes down to the first
// difference. Empty when they are equal, or not both objects or both lists (the field itself is the difference).
func within(was, now any, at string) []string {
	if sameJSON(was, now) {
		return nil
	}
	switch w := was.(type) {
	case map[string]any:
		n, ok := now.(map[string]any)
		if !ok {
			return nil
		}
		var out []string
		for _, k := range keysOfBoth(w, n) {
			p := at + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
			wv, win := w[k]
			nv, nin := n[k]
			switch {
			case win != nin:
				out = append(out, p)
			case !sameJSON(wv, nv):
				if deeper := within(wv, nv, p); len(deeper) > 0 {
					out = append(out, deeper...)
				} else {
					out = append(out, p)
				}
			}
		}
		return out
	case []any:
		n, ok := now.([]any)
		if !ok {
			return nil
		}
		if len(w) != len(n) {
			return []string{strings.TrimSpace(at + " (" + strconv.Itoa(len(w)) + " items, now " + strconv.Itoa(len(n)) + ")")}
		}
		var out []string
		for i := range w {
			p := at + "/" + strconv.Itoa(i)
			if !sameJSON(w[i], n[i]) {
				if deeper := within(w[i], n[i], p); len(deeper) > 0 {
					out = append(out, deeper...)
				} else {
					out = append(out, p)
				}
			}
		}
		return out
	}
	return nil
}

// Changes names what differs between two objects, as Diff names the parts of a field compared whole: for an object
// whose writer keeps no baseline, want is what that writer would make of it, and live the object (as Diff's baseline
// and live object).
func Changes(want, live map[string]any) []string {
	var out []string
	for _, k := range keysOfBoth(want, live) {
		out = append(out, wholeDiff(k, want[k], live[k])...)
	}
	return out
}

// keysOfBoth are the keys of a and b, sorted, each once.
func keysOfBoth(a, b map[string]any) []string {
	keys := slices.Concat(slices.Collect(maps.Keys(a)), slices.Collect(maps.Keys(b)))
	slices.Sort(keys)
	return slices.Compact(keys)
}

func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
