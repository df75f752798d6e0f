package tfvalue

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type takeInner struct {
	CPU types.String `tfsdk:"cpu"`
	Mem types.String `tfsdk:"memory"`
}

type takeModel struct {
	rawInner
	Name  types.String `tfsdk:"name"`
	Count types.Int64  `tfsdk:"count"`
	Env   types.Map    `tfsdk:"env"`
	Head  *takeInner   `tfsdk:"head"`
	Drift types.List   `tfsdk:"drift"`
}

func TestTakeChanged(t *testing.T) {
	t.Parallel()
	s := types.StringValue
	// state spells the head's CPU "2000m"; its configuration read back (base) says "2".
	state := func() *takeModel {
		return &takeModel{rawInner: rawInner{Phase: s("Running")}, Name: s("a"), Count: types.Int64Value(1),
			Env: types.MapNull(types.StringType), Head: &takeInner{CPU: s("2000m"), Mem: s("4Gi")}, Drift: types.ListNull(types.StringType)}
	}
	read := func(change func(*takeModel)) *takeModel {
		m := &takeModel{rawInner: rawInner{Phase: s("Running")}, Name: s("a"), Count: types.Int64Value(1),
			Env: types.MapNull(types.StringType), Head: &takeInner{CPU: s("2"), Mem: s("4Gi")}}
		if change != nil {
			change(m)
		}
		return m
	}
	cases := []struct {
		name string
		live func(*takeModel)
		want func(*takeModel) // nil: nothing taken
	}{
		{name: "the same, spelled as the read spells it"},
		{name: "a scalar", live: func(m *takeModel) { m.Count = types.Int64Value(2) },
			want: func(m *takeModel) { m.Count = types.Int64Value(2) }},
		{name: "an embedded struct's scalar", live: func(m *takeModel) { m.Phase = s("Done") },
			want: func(m *takeModel) { m.Phase = s("Done") }},
		{name: "a map", live: func(m *takeModel) {
			m.Env = types.MapValueMust(types.StringType, map[string]attr.Value{"A": s("b")})
		}, want: func(m *takeModel) { m.Env = types.MapValueMust(types.StringType, map[string]attr.Value{"A": s("b")}) }},
		{name: "one nested attribute, the other kept as state spells it", live: func(m *takeModel) { m.Head.Mem = s("8Gi") },
			want: func(m *takeModel) { m.Head = &takeInner{CPU: s("2000m"), Mem: s("8Gi")} }},
		{name: "a nested model gone", live: func(m *takeModel) { m.Head = nil }, want: func(m *takeModel) { m.Head = nil }},
		{name: "a map no read sets beside one that does", live: func(m *takeModel) { m.Env = types.Map{} },
			want: func(m *takeModel) { m.Env = types.Map{} }},
		{name: "to null", live: func(m *takeModel) { m.Name = types.StringNull() }, want: func(m *takeModel) { m.Name = types.StringNull() }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, want := state(), state()
			if tc.want != nil {
				tc.want(want)
			}
			if changed := TakeChanged(got, read(nil), read(tc.live)); changed != (tc.want != nil) {
				t.Errorf("TakeChanged = %v, want %v", changed, tc.want != nil)
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(takeModel{}), cmp.Comparer(func(a, b attr.Value) bool {
				return reflect.ValueOf(a).IsZero() && reflect.ValueOf(b).IsZero() || a.Equal(b)
			})); diff != "" {
				t.Errorf("model after TakeChanged (-want +got):\n%s", diff)
			}
		})
	}
}

// A read taken over a zero model copies what it read, and a nested model the state lacks arrives whole; the
// zero-valued fields of both (drift here) stay as the state has them.
func TestTakeChangedCopiesAWholeRead(t *testing.T) {
	t.Parallel()
	read := &takeModel{Name: types.StringValue("a"), Env: types.MapNull(types.StringType), Head: &takeInner{CPU: types.StringValue("2")}}
	got := &takeModel{Drift: types.ListNull(types.StringType)}
	if !TakeChanged(got, &takeModel{}, read) {
		t.Fatal("TakeChanged took nothing of a read")
	}
	if !got.Name.Equal(read.Name) || !got.Env.Equal(read.Env) || got.Head == nil || !got.Head.CPU.Equal(read.Head.CPU) || !got.Drift.IsNull() {
		t.Errorf("after TakeChanged: %+v, head %+v", got, got.Head)
	}
}

// A nested model the state lacks is taken as live has it where base and live differ inside it, and left out where
// they agree.
func TestTakeChangedIntoAMissingNestedModel(t *testing.T) {
	t.Parallel()
	base := &takeModel{Head: &takeInner{CPU: types.StringValue("2")}}
	got := &takeModel{}
	if TakeChanged(got, base, &takeModel{Head: &takeInner{CPU: types.StringValue("2")}}) || got.Head != nil {
		t.Errorf("an unchanged nested model was taken: %+v", got.Head)
	}
	if !TakeChanged(got, base, &takeModel{Head: &takeInner{CPU: types.StringValue("3")}}) || got.Head == nil || got.Head.CPU.ValueString() != "3" {
		t.Errorf("a changed nested model was not taken: %+v", got.Head)
	}
}
