package tfvalue

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

type rawInner struct {
	Phase types.String `tfsdk:"phase"`
}

type rawOuter struct {
	rawInner
	Name   types.String              `tfsdk:"name"`
	Ready  types.Bool                `tfsdk:"ready"`
	Count  types.Int64               `tfsdk:"count"`
	Labels types.Map                 `tfsdk:"labels"`
	Nodes  types.Map                 `tfsdk:"nodes"`
	Head   *struct{ X types.String } `tfsdk:"head"`
}

func TestFillScalars(t *testing.T) {
	t.Parallel()
	strMap, numMap := tftypes.Map{ElementType: tftypes.String}, tftypes.Map{ElementType: tftypes.Number}
	head := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"x": tftypes.String}}
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"phase": tftypes.String, "name": tftypes.String, "ready": tftypes.Bool, "count": tftypes.Number,
		"labels": strMap, "nodes": numMap, "head": head,
	}}
	v := tftypes.NewValue(typ, map[string]tftypes.Value{
		"phase": tftypes.NewValue(tftypes.String, "Running"), "name": tftypes.NewValue(tftypes.String, nil),
		"ready": tftypes.NewValue(tftypes.Bool, true), "count": tftypes.NewValue(tftypes.Number, 3),
		"labels": tftypes.NewValue(strMap, map[string]tftypes.Value{"a": tftypes.NewValue(tftypes.String, "b")}),
		"nodes":  tftypes.NewValue(numMap, nil),
		"head":   tftypes.NewValue(head, map[string]tftypes.Value{"x": tftypes.NewValue(tftypes.String, "y")}),
	})
	var got rawOuter
	if !FillScalars(context.Background(), v, &got) {
		t.Fatal("FillScalars refused a value of the model's shape")
	}
	want := rawOuter{
		rawInner: rawInner{Phase: types.StringValue("Running")}, Name: types.StringNull(), Ready: types.BoolValue(true),
		Count: types.Int64Value(3), Labels: types.MapValueMust(types.StringType, map[string]attr.Value{"a": types.StringValue("b")}),
		Nodes: types.MapNull(types.Int64Type),
	}
	for _, f := range []struct {
		name      string
		want, got attr.Value
	}{
		{"phase", want.Phase, got.Phase}, {"name", want.Name, got.Name}, {"ready", want.Ready, got.Ready},
		{"count", want.Count, got.Count}, {"labels", want.Labels, got.Labels}, {"nodes", want.Nodes, got.Nodes},
	} {
		if !f.want.Equal(f.got) {
			t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
		}
	}
	if got.Head == nil {
		t.Errorf("head = nil, want the nested object filled")
	}
	// A value missing one of the model's attributes, or of another shape, is not filled: the caller falls back.
	short := tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"phase": tftypes.String}},
		map[string]tftypes.Value{"phase": tftypes.NewValue(tftypes.String, "x")})
	if FillScalars(context.Background(), short, &rawOuter{}) {
		t.Error("FillScalars filled a model from a value without its attributes")
	}
	if FillScalars(context.Background(), tftypes.NewValue(typ, tftypes.UnknownValue), &rawOuter{}) {
		t.Error("FillScalars filled a model from an unknown value")
	}
}

func TestSetScalars(t *testing.T) {
	t.Parallel()
	strMap := tftypes.Map{ElementType: tftypes.String}
	head := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"x": tftypes.String}}
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"phase": tftypes.String, "name": tftypes.String, "ready": tftypes.Bool, "count": tftypes.Number,
		"labels": strMap, "nodes": tftypes.Map{ElementType: tftypes.Number}, "head": head,
	}}
	headVal := tftypes.NewValue(head, map[string]tftypes.Value{"x": tftypes.NewValue(tftypes.String, "y")})
	v := tftypes.NewValue(typ, map[string]tftypes.Value{
		"phase": tftypes.NewValue(tftypes.String, "Pending"), "name": tftypes.NewValue(tftypes.String, "job"),
		"ready": tftypes.NewValue(tftypes.Bool, false), "count": tftypes.NewValue(tftypes.Number, 1),
		"labels": tftypes.NewValue(strMap, nil), "nodes": tftypes.NewValue(tftypes.Map{ElementType: tftypes.Number}, nil),
		"head": headVal,
	})
	ctx := context.Background()
	var m rawOuter
	if !FillScalars(ctx, v, &m) {
		t.Fatal("FillScalars refused the value")
	}
	same, err := SetScalars(ctx, v, &m)
	if err != nil || !same.Equal(v) {
		t.Errorf("SetScalars of the model it was filled from = %v, %v; want the value unchanged", same, err)
	}
	m.Phase, m.Labels = types.StringValue("Running"), types.MapValueMust(types.StringType, map[string]attr.Value{"a": types.StringValue("b")})
	got, err := SetScalars(ctx, v, &m)
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := got.As(&attrs); err != nil {
		t.Fatal(err)
	}
	want := tftypes.NewValue(strMap, map[string]tftypes.Value{"a": tftypes.NewValue(tftypes.String, "b")})
	if !attrs["phase"].Equal(tftypes.NewValue(tftypes.String, "Running")) || !attrs["labels"].Equal(want) || !attrs["head"].Equal(headVal) {
		t.Errorf("SetScalars = %v; want phase Running, labels {a = b} and head untouched", got)
	}
	// A model value of the wrong type is an error, not a panic.
	m.Labels = types.MapValueMust(types.Int64Type, map[string]attr.Value{"a": types.Int64Value(1)})
	if _, err := SetScalars(ctx, v, &m); err == nil {
		t.Error("SetScalars wrote a map of numbers where the schema has a map of strings")
	}
}
