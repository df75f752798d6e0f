package provider

import (
	"context"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// defaultBases adds, for the types the plan shortcut leaves to the framework, valid configurations in which each of
// their defaults can be set.
var defaultBases = map[string][]map[string]any{
	"dwsfallback_cluster":       {{"name": "tpu-cluster"}},
	"dwsfallback_kueue_install": {{"cluster": "tpu-cluster", "chart_version": "0.17.0"}},
	"dwsfallback_compute_class": {{
		"cluster": "tpu-cluster", "name": "tpu-fallback",
		"priorities": []any{
			map[string]any{"nodepools": []any{"on-demand-pool"}},
			map[string]any{"gpu": map[string]any{"type": "nvidia-h100-80gb", "count": 8}},
		},
	}},
	"dwsfallback_multikueue_worker": {{"cluster": "manager", "name": "worker-us", "worker_cluster": "tpu-worker-us"}},
}

// TestRemovingASettingPlansItsDefault: for every attribute with a Default, at any depth, of every type with a base
// configuration, a prior state that holds another value (set by hand, or by a configuration that has since dropped
// the setting) plans the default, through the provider's server, shortcut and all.
func TestRemovingASettingPlansItsDefault(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := NewServer(&dwsProvider{version: "test"})()
	schemas := configureForDiff(t, ctx, s)
	bases := map[string][]map[string]any{}
	for k, v := range diffBases {
		bases[k] = v
	}
	for k, v := range defaultBases {
		bases[k] = v
	}
	covered := map[string]bool{}
	for _, f := range (&dwsProvider{}).Resources(ctx) {
		ps, typeName := newPlanShortcut(ctx, f)
		if len(ps.defaults) == 0 {
			continue
		}
		if bases[typeName] == nil {
			t.Errorf("%s has defaults (%d) but no base configuration here to test them on", typeName, len(ps.defaults))
			continue
		}
		typ := schemas[typeName].ValueType()
		keys := make([]string, 0, len(ps.defaults))
		for k := range ps.defaults {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, key := range keys {
			def := ps.defaults[key]
			for _, base := range bases[typeName] {
				config := buildValue(t, typ, base)
				prior := planCreate(t, ctx, s, typeName, typ, config)
				drifted, ok := changeAt(t, prior, key, def)
				if !ok {
					continue // the base has no such nested object
				}
				config = nullAt(t, config, key)
				planned, _ := planOver(t, ctx, s, schemas[typeName], typeName, drifted, config)
				if got := valuesAt(t, planned, key); len(got) == 0 || !allEqual(got, def) {
					t.Errorf("%s.%s removed from the configuration, state holding another value: planned %v, want the default %v", typeName, key, got, def)
				}
				covered[typeName+"."+key] = true
				break
			}
			if !covered[typeName+"."+key] {
				t.Errorf("%s.%s: no base configuration holds it", typeName, key)
			}
		}
	}
	t.Logf("%d defaults removed from the configuration, each planned back", len(covered))
	if len(covered) < 20 {
		t.Errorf("only %d defaults covered: %v", len(covered), covered)
	}
}

// planOver plans config over the prior state through the provider's server, as Terraform would propose it.
func planOver(t *testing.T, ctx context.Context, s tfprotov6.ProviderServer, sch *tfprotov6.Schema, typeName string, prior, config tftypes.Value) (tftypes.Value, *tfprotov6.PlanResourceChangeResponse) {
	t.Helper()
	typ := sch.ValueType()
	resp, err := s.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: typeName, PriorState: dynamic(t, typ, prior), Config: dynamic(t, typ, config),
		ProposedNewState: dynamic(t, typ, proposedNew(sch.Block, prior, config)),
	})
	if err != nil {
		t.Fatal(err)
	}
	planned, err := resp.PlannedState.Unmarshal(typ)
	if err != nil {
		t.Fatalf("%s: %v (%v)", typeName, err, resp.Diagnostics)
	}
	return planned, resp
}

// changeAt is v with every value at key (a defaults key) replaced by another of its type than def.
func changeAt(t *testing.T, v tftypes.Value, key string, def tftypes.Value) (tftypes.Value, bool) {
	t.Helper()
	found := false
	out, err := tftypes.Transform(v, func(p *tftypes.AttributePath, x tftypes.Value) (tftypes.Value, error) {
		if schemaKey(p) != key || x.IsNull() || !x.IsKnown() {
			return x, nil
		}
		found = true
		return otherThan(def), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, found
}

func nullAt(t *testing.T, v tftypes.Value, key string) tftypes.Value {
	t.Helper()
	out, err := tftypes.Transform(v, func(p *tftypes.AttributePath, x tftypes.Value) (tftypes.Value, error) {
		if schemaKey(p) == key {
			return tftypes.NewValue(x.Type(), nil), nil
		}
		return x, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func valuesAt(t *testing.T, v tftypes.Value, key string) []tftypes.Value {
	t.Helper()
	var out []tftypes.Value
	_ = tftypes.Walk(v, func(p *tftypes.AttributePath, x tftypes.Value) (bool, error) {
		if schemaKey(p) == key {
			out = append(out, x)
		}
		return true, nil
	})
	return out
}

func allEqual(vs []tftypes.Value, want tftypes.Value) bool {
	for _, v := range vs {
		if !v.Equal(want) {
			return false
		}
	}
	return true
}

// otherThan is a value of def's type that is not def.
func otherThan(def tftypes.Value) tftypes.Value {
	switch {
	case def.Type().Is(tftypes.Bool):
		var b bool
		_ = def.As(&b)
		return tftypes.NewValue(tftypes.Bool, !b)
	case def.Type().Is(tftypes.Number):
		var n big.Float
		_ = def.As(&n)
		return tftypes.NewValue(tftypes.Number, new(big.Float).Add(&n, big.NewFloat(1)))
	case def.Type().Is(tftypes.String):
		var s string
		_ = def.As(&s)
		return tftypes.NewValue(tftypes.String, s+"-changed")
	}
	return tftypes.NewValue(def.Type(), nil)
}

// computedDefaults are the Optional+Computed attributes that keep their state through UseStateForUnknown and get
// their default from ModifyPlan: each must be planned back when the configuration leaves it out, as a schema Default
// is. The value is the base configuration's default (the first base of diffBases). Other such attributes are listed
// in identityOnly.
var computedDefaults = map[string]map[string]tftypes.Value{
	"dwsfallback_rayjob": {
		"files_config_map":           tftypes.NewValue(tftypes.String, "job-a-files"),
		"enable_in_tree_autoscaling": tftypes.NewValue(tftypes.Bool, false), // a queued job that is not elastic
	},
}

// identityOnly are Optional+Computed attributes, of every type, kept by UseStateForUnknown that nothing changes by
// hand: where the object is (resolved at plan time from the cluster id and the provider). A new value is another
// object, which their own plan modifiers replace.
var identityOnly = map[string]bool{"project": true, "location": true}

// TestComputedDefaultsArePlannedBack: a computed default changed by hand (read back into state) is planned back when
// the configuration leaves it out; UseStateForUnknown alone kept it, so the plan said "No changes". An attribute added
// to a schema with UseStateForUnknown on an Optional+Computed value fails this test until it is listed above.
func TestComputedDefaultsArePlannedBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := NewServer(&dwsProvider{version: "test"})()
	schemas := configureForDiff(t, ctx, s)
	for _, f := range (&dwsProvider{}).Resources(ctx) {
		r := f()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "dwsfallback"}, &meta)
		var sr resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sr)
		for name, a := range sr.Schema.Attributes {
			if !a.IsOptional() || !a.IsComputed() || !keepsState(a) || identityOnly[name] {
				continue
			}
			if _, ok := computedDefaults[meta.TypeName][name]; !ok {
				t.Errorf("%s.%s is Optional+Computed and kept by UseStateForUnknown: list it in computedDefaults (with the default "+
					"ModifyPlan plans) or in identityOnly", meta.TypeName, name)
			}
		}
	}
	for typeName, defaults := range computedDefaults {
		typ := schemas[typeName].ValueType()
		for key, def := range defaults {
			config := buildValue(t, typ, diffBases[typeName][0])
			prior := planCreate(t, ctx, s, typeName, typ, config)
			drifted, ok := changeAt(t, prior, key, def)
			if !ok {
				t.Fatalf("%s.%s: not in the created state", typeName, key)
			}
			planned, resp := planOver(t, ctx, s, schemas[typeName], typeName, drifted, config)
			if got := valuesAt(t, planned, key); len(got) != 1 || !got[0].Equal(def) {
				t.Errorf("%s.%s changed by hand, left out of the configuration: planned %v, want the default %v", typeName, key, got, def)
			}
			// Planned back by ModifyPlan, after the attribute's own RequiresReplace saw no change: it must replace.
			replaces := slices.ContainsFunc(resp.RequiresReplace, func(p *tftypes.AttributePath) bool { return p.Equal(tftypes.NewAttributePath().WithAttributeName(key)) })
			if want := hasModifier(attrOf(t, ctx, typeName, key), "requiresReplace"); replaces != want {
				t.Errorf("%s.%s planned back: replaces = %v, want %v (its RequiresReplace)", typeName, key, replaces, want)
			}
		}
	}
}

// keepsState reports whether a top-level attribute's plan modifiers include UseStateForUnknown, of any type.
func keepsState(a schema.Attribute) bool { return hasModifier(a, "useStateForUnknown") }

// hasModifier reports whether an attribute has a plan modifier whose Go type is named kind.
func hasModifier(a schema.Attribute, kind string) bool {
	mods := reflect.ValueOf(a).FieldByName("PlanModifiers")
	for i := 0; mods.IsValid() && i < mods.Len(); i++ {
		if strings.Contains(fmt.Sprintf("%T", mods.Index(i).Interface()), kind) {
			return true
		}
	}
	return false
}

// attrOf is the top-level attribute name of resource type typeName.
func attrOf(t *testing.T, ctx context.Context, typeName, name string) schema.Attribute {
	t.Helper()
	for _, f := range (&dwsProvider{}).Resources(ctx) {
		r := f()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "dwsfallback"}, &meta)
		if meta.TypeName != typeName {
			continue
		}
		var sr resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sr)
		return sr.Schema.Attributes[name]
	}
	t.Fatalf("no resource type %s", typeName)
	return nil
}
