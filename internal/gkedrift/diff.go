// Package gkedrift compares a GKE object with the request that made it: every field the request sets, at any depth,
// in GKE's JSON field names. For node pools it also knows what GKE makes of a request, which fields GKE changes in
// place, and the calls that set them again. It knows nothing of Terraform.
package gkedrift

import (
	"slices"
	"sort"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Diff names each field that want sets and have holds otherwise ("config.machineType",
// "placementPolicy.tpuTopology"), sorted. A message field is compared field by field; a list or a map is compared
// whole, items by proto.Equal, as GKE's updates replace them whole (labels, taints, oauth scopes). A field want leaves
// unset is GKE's to fill and is not compared, unless it is one of zeros: a field the request means at its zero value
// (auto-repair off), which proto3 cannot tell from unset.
func Diff(want, have proto.Message, zeros ...string) []string {
	var out []string
	diff(want.ProtoReflect(), have.ProtoReflect(), "", zeros, &out)
	sort.Strings(out)
	return out
}

func diff(want, have protoreflect.Message, prefix string, zeros []string, out *[]string) {
	want.Range(func(fd protoreflect.FieldDescriptor, w protoreflect.Value) bool {
		path := prefix + fd.JSONName()
		if nested(fd) {
			if !have.Has(fd) {
				*out = append(*out, path)
				return true
			}
			diff(w.Message(), have.Get(fd).Message(), path+".", zeros, out)
			return true
		}
		if !have.Has(fd) || !equal(fd, w, have.Get(fd)) {
			*out = append(*out, path)
		}
		return true
	})
	for _, fd := range unsetZeros(want, prefix, zeros) {
		if have.Has(fd) {
			*out = append(*out, prefix+fd.JSONName())
		}
	}
}

// nested says whether a field is a message Diff compares field by field: not a list or map, and not one of
// protobuf's well-known types (a Duration such as config.maxRunDuration), which GKE's JSON writes as one value.
func nested(fd protoreflect.FieldDescriptor) bool {
	return fd.Message() != nil && !fd.IsList() && !fd.IsMap() && fd.Message().ParentFile().Package() != "google.protobuf"
}

// unsetZeros are the fields of m, under prefix, that m leaves at zero and that zeros names.
func unsetZeros(m protoreflect.Message, prefix string, zeros []string) []protoreflect.FieldDescriptor {
	var out []protoreflect.FieldDescriptor
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !m.Has(fd) && slices.Contains(zeros, prefix+fd.JSONName()) {
			out = append(out, fd)
		}
	}
	return out
}

// equal compares two values of one field: proto.Equal's rules, for a field rather than a message.
func equal(fd protoreflect.FieldDescriptor, a, b protoreflect.Value) bool {
	switch {
	case fd.IsList():
		la, lb := a.List(), b.List()
		if la.Len() != lb.Len() {
			return false
		}
		for i := range la.Len() {
			if !scalarOrMessageEqual(fd, la.Get(i), lb.Get(i)) {
				return false
			}
		}
		return true
	case fd.IsMap():
		ma, mb := a.Map(), b.Map()
		if ma.Len() != mb.Len() {
			return false
		}
		same := true
		ma.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
			same = mb.Has(k) && scalarOrMessageEqual(fd.MapValue(), v, mb.Get(k))
			return same
		})
		return same
	}
	return scalarOrMessageEqual(fd, a, b)
}

func scalarOrMessageEqual(fd protoreflect.FieldDescriptor, a, b protoreflect.Value) bool {
	if fd.Message() != nil {
		return proto.Equal(a.Message().Interface(), b.Message().Interface())
	}
	return a.Equal(b)
}

// Leaves names every field m sets, or leaves at a zero that zeros names, that Diff compares as one: scalars, and lists
// and maps whole, at any depth.
func Leaves(m proto.Message, zeros ...string) []string {
	var out []string
	var walk func(protoreflect.Message, string)
	walk = func(m protoreflect.Message, prefix string) {
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if nested(fd) {
				walk(v.Message(), prefix+fd.JSONName()+".")
				return true
			}
			out = append(out, prefix+fd.JSONName())
			return true
		})
		for _, fd := range unsetZeros(m, prefix, zeros) {
			out = append(out, prefix+fd.JSONName())
		}
	}
	walk(m.ProtoReflect(), "")
	sort.Strings(out)
	return out
}
