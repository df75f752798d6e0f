package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// upgradeCasesPerType is how many states each resource type's upgrade is tried on.
const upgradeCasesPerType = 500

// TestUpgradeShortcutMatchesFramework is the differential test of server.UpgradeResourceState: states written as
// Terraform writes them (JSON), from the plan differential test's bases with drifted and unknown-filled values, and
// now and then an attribute the schema no longer has, one it gained since, or an
// earlier schema version. The provider's server and the plain framework server must answer the same.
func TestUpgradeShortcutMatchesFramework(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fastServer, err := NewServer(&dwsProvider{version: "test"})()
	if err != nil {
		t.Fatal(err)
	}
	plain, err := providerserver.NewProtocol6WithError(&dwsProvider{version: "test"})()
	if err != nil {
		t.Fatal(err)
	}
	schemas := configureForDiff(t, ctx, fastServer, plain)
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, typeName := range names {
		bases := diffBases[typeName]
		if len(bases) == 0 {
			continue
		}
		t.Run(typeName, func(t *testing.T) {
			typ := schemas[typeName].ValueType()
			fast, cases := 0, 0
			defer func() {
				if fast < cases/2 || fast == cases {
					t.Errorf("the one-pass decoder took %d of %d states; most, not all, should be its", fast, cases)
				}
			}()
			for bi, base := range bases {
				rng := rand.New(rand.NewPCG(diffSeed, uint64(100+bi)))
				created := planCreate(t, ctx, plain, typeName, typ, buildValue(t, typ, base))
				for i := range upgradeCasesPerType / len(bases) {
					g := diffGen{rng: rng}
					st := g.driftValue(g.fillUnknown(created, ""), "", 0.2)
					doc := jsonOf(st).(map[string]any)
					version := schemas[typeName].Version
					switch rng.IntN(8) {
					case 0:
						doc["removed_since"] = "x" // an attribute an earlier release had
					case 1:
						delete(doc, randomKey(rng, doc)) // an attribute added since
					case 2:
						version++ // a state from a newer release
					case 3:
						stringifyScalar(rng, doc) // JSON Terraform would not write, but tftypes reads
					}
					raw, err := json.Marshal(doc)
					if err != nil {
						t.Fatal(err)
					}
					if _, ok := valueFromStateJSON(typ, raw); ok {
						fast++
					}
					cases++
					req := &tfprotov6.UpgradeResourceStateRequest{TypeName: typeName, Version: version, RawState: &tfprotov6.RawState{JSON: raw}}
					got, err1 := fastServer.UpgradeResourceState(ctx, req)
					want, err2 := plain.UpgradeResourceState(ctx, req)
					if err1 != nil || err2 != nil {
						t.Fatalf("errors %v / %v", err1, err2)
					}
					if diff := cmp.Diff(upgradeAnswer(t, typ, want), upgradeAnswer(t, typ, got)); diff != "" {
						t.Fatalf("base %d case %d: the shortcut's answer differs from the framework's (-framework +shortcut):\n%s\nstate: %s",
							bi, i, diff, raw)
					}
				}
			}
		})
	}
}

func upgradeAnswer(t *testing.T, typ tftypes.Type, r *tfprotov6.UpgradeResourceStateResponse) []string {
	t.Helper()
	var out []string
	if r.UpgradedState != nil {
		v, err := r.UpgradedState.Unmarshal(typ)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v.String())
	}
	for _, d := range r.Diagnostics {
		out = append(out, fmt.Sprintf("%v %s: %s", d.Severity, d.Summary, d.Detail))
	}
	return out
}

// jsonOf is a wholly known value as Terraform writes it in state.
func jsonOf(v tftypes.Value) any {
	if v.IsNull() {
		return nil
	}
	switch v.Type().(type) {
	case tftypes.Object, tftypes.Map:
		var m map[string]tftypes.Value
		_ = v.As(&m)
		out := map[string]any{}
		for k, e := range m {
			out[k] = jsonOf(e)
		}
		return out
	case tftypes.List, tftypes.Set:
		var l []tftypes.Value
		_ = v.As(&l)
		out := []any{}
		for _, e := range l {
			out = append(out, jsonOf(e))
		}
		return out
	}
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return s
	case v.Type().Is(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		return b
	case v.Type().Is(tftypes.Number):
		var f big.Float
		_ = v.As(&f)
		return json.Number(f.Text('g', -1))
	}
	panic("jsonOf: " + v.Type().String())
}

// stringifyScalar writes one top-level number or bool of doc as a string.
func stringifyScalar(rng *rand.Rand, doc map[string]any) {
	var keys []string
	for k, v := range doc {
		switch v.(type) {
		case json.Number, bool:
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return
	}
	sort.Strings(keys)
	k := keys[rng.IntN(len(keys))]
	doc[k] = fmt.Sprint(doc[k])
}

// BenchmarkStateJSON is what decoding one RayJob's state costs, in one pass and through tftypes.
func BenchmarkStateJSON(b *testing.B) {
	ctx := context.Background()
	plain, err := providerserver.NewProtocol6WithError(&dwsProvider{version: "test"})()
	if err != nil {
		b.Fatal(err)
	}
	schemas := configureForDiff(b, ctx, plain)
	typ := schemas["dwsfallback_rayjob"].ValueType()
	st := diffGen{rng: rand.New(rand.NewPCG(1, 2))}.fillUnknown(planCreate(b, ctx, plain, "dwsfallback_rayjob", typ, buildValue(b, typ, diffBases["dwsfallback_rayjob"][1])), "")
	raw, _ := json.Marshal(jsonOf(st))
	b.Run("one-pass", func(b *testing.B) {
		for b.Loop() {
			valueFromStateJSON(typ, raw)
		}
	})
	b.Run("tftypes", func(b *testing.B) {
		for b.Loop() {
			_, _ = tftypes.ValueFromJSONWithOpts(raw, typ, tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true})
		}
	})
}

func randomKey(rng *rand.Rand, m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys[rng.IntN(len(keys))]
}
