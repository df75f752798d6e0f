package provider

import (
	"context"
	"math/big"
	"sort"
	"testing"

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
				resp, err := s.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
					TypeName: typeName, PriorState: dynamic(t, typ, drifted), Config: dynamic(t, typ, config),
					ProposedNewState: dynamic(t, typ, proposedNew(schemas[typeName].Block, drifted, config)),
				})
				if err != nil {
					t.Fatal(err)
				}
				planned, err := resp.PlannedState.Unmarshal(typ)
				if err != nil {
					t.Fatalf("%s.%s: %v (%v)", typeName, key, err, resp.Diagnostics)
				}
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
