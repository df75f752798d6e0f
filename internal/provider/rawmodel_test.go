package provider

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
	if !fillScalars(context.Background(), v, &got) {
		t.Fatal("fillScalars refused a value of the model's shape")
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
	if got.Head != nil {
		t.Errorf("head = %v, want it left alone (nil): nested objects are not filled", got.Head)
	}
	// A value missing one of the model's attributes, or of another shape, is not filled: the caller falls back.
	short := tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"phase": tftypes.String}},
		map[string]tftypes.Value{"phase": tftypes.NewValue(tftypes.String, "x")})
	if fillScalars(context.Background(), short, &rawOuter{}) {
		t.Error("fillScalars filled a model from a value without its attributes")
	}
	if fillScalars(context.Background(), tftypes.NewValue(typ, tftypes.UnknownValue), &rawOuter{}) {
		t.Error("fillScalars filled a model from an unknown value")
	}
}
