package provider

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The differential test of the validation shortcut: generated configurations of each short-cut type (valid ones,
// ones with values a validator refuses, settings removed, values unknown, read-only attributes set and required ones
// missing), validated by the provider's server and by the plain framework server, before and after the provider is
// configured, must get the same diagnostics.
func TestValidateShortcutMatchesFramework(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, configured := range []bool{false, true} {
		fastServer, err := NewServer(&dwsProvider{version: "test"})()
		if err != nil {
			t.Fatal(err)
		}
		fast := fastServer.(*server)
		plain, err := providerserver.NewProtocol6WithError(&dwsProvider{version: "test"})()
		if err != nil {
			t.Fatal(err)
		}
		planner, err := providerserver.NewProtocol6WithError(&dwsProvider{version: "test"})()
		if err != nil {
			t.Fatal(err)
		}
		schemas := configureForDiff(t, ctx, planner)
		if configured {
			configureForDiff(t, ctx, fast, plain)
		}
		fast.valueType(ctx, "")
		names := make([]string, 0, len(diffBases))
		for n := range diffBases {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, typeName := range names {
			vs := fast.validates[typeName]
			if vs == nil {
				t.Fatalf("%s has no validation shortcut", typeName)
			}
			if vs.unsupported != "" {
				if typeName == "dwsfallback_rayjob" {
					t.Fatalf("the shortcut does not cover %s: %s", typeName, vs.unsupported)
				}
				t.Logf("%s is validated by the framework: %s", typeName, vs.unsupported)
				continue
			}
			sch := schemas[typeName]
			typ := sch.ValueType()
			shortCut, refused, cases := 0, 0, 0
			bases := diffBases[typeName]
			perBase := (diffCasesPerType + len(bases) - 1) / len(bases)
			for bi, base := range bases {
				rng := rand.New(rand.NewPCG(diffSeed+1, uint64(bi)))
				created := planCreate(t, ctx, planner, typeName, typ, buildValue(t, typ, base))
				for i := range perBase {
					name := fmt.Sprintf("configured %v, base %d case %d", configured, bi, i)
					g := diffGen{rng: rng, defaults: fast.plans[typeName].defaults}
					prior := g.fillUnknown(created, "")
					if i%2 == 1 {
						prior = g.driftValue(prior, "", 0.2)
					}
					cfg := g.misconfigure(sch.Block, g.configOf(sch.Block, prior), prior)
					req := &tfprotov6.ValidateResourceConfigRequest{TypeName: typeName, Config: dynamic(t, typ, cfg)}
					if i%3 == 0 {
						req.ClientCapabilities = &tfprotov6.ValidateResourceConfigClientCapabilities{WriteOnlyAttributesAllowed: true}
					}
					if resp, ok := vs.validate(ctx, req, typ, fast.providerData()); ok {
						shortCut++
						if len(resp.Diagnostics) > 0 {
							refused++
						}
					}
					cases++
					got, err1 := fast.ValidateResourceConfig(ctx, req)
					want, err2 := plain.ValidateResourceConfig(ctx, req)
					if err1 != nil || err2 != nil {
						t.Fatalf("%s: errors %v / %v", name, err1, err2)
					}
					wantDiags := validateAnswer(want.Diagnostics)
					if diff := cmp.Diff(wantDiags, validateAnswer(got.Diagnostics)); diff != "" {
						t.Fatalf("%s: the shortcut's diagnostics differ from the framework's (-framework +shortcut):\n%s\nconfig: %s", name, diff, cfg)
					}
				}
			}
			// Both sides are the test: the generator must reach the shortcut mostly, and the shortcut's validators must
			// refuse often.
			if shortCut < cases/2 || refused < cases/10 {
				t.Errorf("%s: the shortcut answered %d of %d cases, %d refused; the generator should make both common", typeName, shortCut, cases, refused)
			}
			t.Logf("%s (configured %v): %d cases, %d answered by the shortcut, %d of them with diagnostics", typeName, configured, cases, shortCut, refused)
		}
	}
}

// validateAnswer is a response's diagnostics in a stable order: the framework validates attributes in map order.
func validateAnswer(diags []*tfprotov6.Diagnostic) []string {
	out := make([]string, 0, len(diags))
	for _, d := range diags {
		out = append(out, fmt.Sprintf("%v %s: %s (%v)", d.Severity, d.Summary, d.Detail, d.Attribute))
	}
	sort.Strings(out)
	return out
}

// misconfigure now and then sets a read-only attribute, leaves a required one out, or makes a nested object unknown:
// configurations Terraform itself would mostly refuse before asking, which the framework words.
func (g diffGen) misconfigure(b *tfprotov6.SchemaBlock, cfg, prior tftypes.Value) tftypes.Value {
	var c, p map[string]tftypes.Value
	if cfg.As(&c) != nil || prior.As(&p) != nil {
		return cfg
	}
	for _, a := range b.Attributes {
		switch {
		case a.Computed && !a.Optional && !p[a.Name].IsNull() && g.chance(0.01):
			c[a.Name] = p[a.Name]
		case a.Required && g.chance(0.01):
			c[a.Name] = tftypes.NewValue(c[a.Name].Type(), nil)
		case a.NestedType != nil && !c[a.Name].IsNull() && g.chance(0.03):
			c[a.Name] = tftypes.NewValue(c[a.Name].Type(), tftypes.UnknownValue)
		}
	}
	return tftypes.NewValue(cfg.Type(), c)
}
