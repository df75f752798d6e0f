package provider

import (
	"context"
	"fmt"
	"maps"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The differential test of the plan shortcut: for each short-cut resource type, many generated (configuration, prior
// state) pairs, planned by the provider's server and by the plain framework server, must get the same answer byte for
// byte. The cases start from valid configurations planned by the framework, then drift the prior state (values set
// by hand, ERROR pools, stale ids), drop settings from the configuration (null where a Default applies), and make
// some configuration values unknown. Seeded, so a failure names a case that can be run again.

const diffSeed = 20261201

// diffCasesPerType is how many cases each type gets, shared among its base configurations.
const diffCasesPerType = 2000

// diffBases are valid configurations of each short-cut type, as attribute values.
var diffBases = map[string][]map[string]any{
	"dwsfallback_rayjob": {
		{
			"cluster": "tpu-cluster", "name": "job-a", "queue": "user-queue", "entrypoint": "python /app/train.py",
			"image": "rayproject/ray:2.53.0-py311", "files": map[string]any{"train.py": "print(1)"},
			"head":        map[string]any{"cpu": "2", "memory": "4Gi"},
			"tpu_workers": map[string]any{"accelerator": "tpu-v6e-slice", "topology": "4x4", "chips_per_node": 4, "cpu": "8", "memory": "16Gi"},
		},
		{
			"cluster": "projects/p2/locations/us-east5-a/clusters/c2", "name": "job-b", "namespace": "team", "queue": "user-queue",
			"elastic": true, "entrypoint": "python /app/train.py", "image": "rayproject/ray:2.53.0-py311",
			"runtime_env":      map[string]any{"pip": []any{"jax[tpu]==0.8.2"}},
			"head":             map[string]any{"cpu": "2", "memory": "4Gi", "node_selector": map[string]any{"cloud.google.com/gke-nodepool": "default-pool"}},
			"tpu_workers":      map[string]any{"accelerator": "tpu-v6e-slice", "topology": "4x4", "chips_per_node": 4, "cpu": "8", "memory": "16Gi", "max_replicas": 2},
			"labels":           map[string]any{"team": "a"},
			"wait_for":         "running",
			"files_mount_path": "/code", "files": map[string]any{"train.py": "print(2)"}, "files_config_map": "jax-train-script",
		},
		{
			"cluster": "tpu-cluster", "name": "job-g", "entrypoint": "python train.py", "image": "rayproject/ray:2.53.0-py311-gpu",
			"head":        map[string]any{"cpu": "2", "memory": "4Gi"},
			"gpu_workers": map[string]any{"accelerator": "nvidia-h100-80gb", "gpus": 8, "cpu": "8", "memory": "64Gi"},
			"env":         map[string]any{"A": "b"}, "resubmit_when_deleted": true, "shutdown_after_job_finishes": false,
		},
	},
	"dwsfallback_tpu_pool_pair": {
		{
			"cluster": "tpu-cluster", "machine_type": "ct6e-standard-4t", "tpu_topology": "4x4", "min_nodes": 0, "max_nodes": 4,
			"on_demand": map[string]any{"name": "on-demand-pool"}, "flex_start": map[string]any{"name": "dws-pool"},
		},
		{
			"cluster": "projects/p2/locations/us-east5-a/clusters/c2", "machine_type": "ct6e-standard-4t", "tpu_topology": "2x4",
			"max_nodes": 8, "on_demand": map[string]any{"name": "od"}, "flex_start": map[string]any{"name": "dws", "provisioning": "queued"},
		},
	},
	"dwsfallback_gpu_pool_pair": {
		{
			"cluster": "tpu-cluster", "machine_type": "a3-highgpu-8g", "max_nodes": 2,
			"on_demand": map[string]any{"name": "h100-od"}, "flex_start": map[string]any{"name": "h100-dws"},
		},
		{
			"cluster": "tpu-cluster", "machine_type": "g2-standard-4", "min_nodes": 1, "max_nodes": 3,
			"on_demand": map[string]any{"name": "l4-od"}, "flex_start": map[string]any{"name": "l4-dws"},
		},
	},
	"dwsfallback_kueue_queue": {
		{
			"cluster": "tpu-cluster", "name": "cluster-queue",
			"flavors": []any{
				map[string]any{"name": "on-demand", "node_labels": map[string]any{"cloud.google.com/gke-nodepool": "on-demand-pool"},
					"quotas": map[string]any{"cpu": "40", "memory": "75Gi", "google.com/tpu": "16"}},
				map[string]any{"name": "dws", "node_labels": map[string]any{"cloud.google.com/gke-nodepool": "dws-pool"},
					"quotas":       map[string]any{"cpu": "1000", "memory": "1000Gi", "google.com/tpu": "1000"},
					"provisioning": map[string]any{"admission_check": "dws-prov", "config": "dws-config"}},
			},
			"local_queues": []any{map[string]any{"namespace": "default", "name": "user-queue"}},
		},
		{
			"cluster": "tpu-cluster", "name": "team-a", "cohort": "all", "queueing_strategy": "StrictFIFO",
			"preemption": map[string]any{"reclaim_within_cohort": "Any"},
			"flavors": []any{
				map[string]any{"name": "dws", "node_labels": map[string]any{"cloud.google.com/gke-nodepool": "dws-pool"},
					"quotas": map[string]any{"google.com/tpu": "64"}, "provisioning": map[string]any{}},
			},
		},
	},
}

func TestPlanShortcutMatchesFramework(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fastServer, err := NewServer(&dwsProvider{version: "test"})()
	if err != nil {
		t.Fatal(err)
	}
	fast := fastServer.(*server)
	plain, err := providerserver.NewProtocol6WithError(&dwsProvider{version: "test"})()
	if err != nil {
		t.Fatal(err)
	}
	schemas := configureForDiff(t, ctx, fast, plain)
	idTypes := identityTypes(t, ctx, plain)
	fast.valueType(ctx, "")
	names := make([]string, 0, len(diffBases))
	for n := range diffBases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, typeName := range names {
		t.Run(typeName, func(t *testing.T) {
			t.Parallel()
			sch := schemas[typeName]
			if ps := fast.plans[typeName]; ps == nil || ps.unsupported != "" {
				t.Fatalf("the shortcut does not cover %s: %v", typeName, ps)
			}
			typ := sch.ValueType()
			shortCut, cases := 0, 0
			bases := diffBases[typeName]
			perBase := (diffCasesPerType + len(bases) - 1) / len(bases)
			for bi, base := range bases {
				rng := rand.New(rand.NewPCG(diffSeed, uint64(bi)))
				config := buildValue(t, typ, base)
				created := planCreate(t, ctx, plain, typeName, typ, config)
				for i := range perBase {
					name := fmt.Sprintf("base %d case %d", bi, i)
					g := diffGen{rng: rng, defaults: fast.plans[typeName].defaults}
					prior := g.fillUnknown(created, "")
					if i%2 == 1 {
						prior = g.drift(sch.Block, prior)
					}
					cfg := g.configOf(sch.Block, prior)
					proposed := proposedNew(sch.Block, prior, cfg)
					priorDV, proposedDV := dynamic(t, typ, prior), dynamic(t, typ, proposed)
					if proposed.Equal(prior) {
						// Terraform writes a map's keys in order, so equal values reach us as equal bytes; tftypes
						// writes them in Go's map order, which would hide a random share of cases from the shortcut.
						proposedDV = &tfprotov6.DynamicValue{MsgPack: priorDV.MsgPack}
					}
					req := &tfprotov6.PlanResourceChangeRequest{
						TypeName:         typeName,
						PriorState:       priorDV,
						ProposedNewState: proposedDV,
						Config:           dynamic(t, typ, cfg),
					}
					if i%3 > 0 { // Terraform 1.12 and later send the prior identity; 1.11 sends none
						req.PriorIdentity = priorIdentity(t, idTypes[typeName], name)
					}
					if fast.unchanged(ctx, req) {
						shortCut++
					}
					cases++
					got, err1 := fast.PlanResourceChange(ctx, req)
					want, err2 := plain.PlanResourceChange(ctx, req)
					if err1 != nil || err2 != nil {
						t.Fatalf("%s: errors %v / %v", name, err1, err2)
					}
					if diff := cmp.Diff(planAnswer(t, typ, idTypes[typeName], want), planAnswer(t, typ, idTypes[typeName], got)); diff != "" {
						t.Fatalf("%s: the shortcut's answer differs from the framework's (-framework +shortcut):\n%s\nprior: %s\nconfig: %s",
							name, diff, prior, cfg)
					}
				}
			}
			// The generator must reach the shortcut often, and miss it often: both sides are the test.
			if shortCut < cases/10 || shortCut > cases*9/10 {
				t.Errorf("the shortcut answered %d of %d cases; the generator should make both kinds common", shortCut, cases)
			}
			t.Logf("%d cases, %d answered by the shortcut", cases, shortCut)
		})
	}
}

// priorIdentity is an identity whose every attribute is seed: the plan must carry it through as it is.
func priorIdentity(t *testing.T, typ tftypes.Type, seed string) *tfprotov6.ResourceIdentityData {
	t.Helper()
	values := map[string]string{}
	for n := range typ.(tftypes.Object).AttributeTypes {
		values[n] = seed
	}
	dv, err := tfprotov6.NewDynamicValue(typ, identityValue(typ, values))
	if err != nil {
		t.Fatal(err)
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &dv}
}

// planAnswer is what a plan response says, comparable with cmp.
type planAnswerT struct {
	State           string
	Private         []byte
	RequiresReplace []string
	Diagnostics     []string
	Deferred        bool
	Identity        string
}

func planAnswer(t *testing.T, typ, idTyp tftypes.Type, r *tfprotov6.PlanResourceChangeResponse) planAnswerT {
	t.Helper()
	out := planAnswerT{Identity: identityText(t, idTyp, r.PlannedIdentity)}
	// Values, not bytes: msgpack of a map follows Go's map order, which differs from one encoding to the next.
	if r.PlannedState != nil {
		v, err := r.PlannedState.Unmarshal(typ)
		if err != nil {
			t.Fatal(err)
		}
		out.State = v.String()
	}
	if len(r.PlannedPrivate) > 0 {
		out.Private = r.PlannedPrivate
	}
	for _, p := range r.RequiresReplace {
		out.RequiresReplace = append(out.RequiresReplace, p.String())
	}
	for _, d := range r.Diagnostics {
		out.Diagnostics = append(out.Diagnostics, fmt.Sprintf("%v %s: %s (%v)", d.Severity, d.Summary, d.Detail, d.Attribute))
	}
	out.Deferred = r.Deferred != nil
	return out
}

// configureForDiff configures both servers alike (default project and location, no credentials: planning needs
// none) and returns the resource schemas.
func configureForDiff(t testing.TB, ctx context.Context, servers ...tfprotov6.ProviderServer) map[string]*tfprotov6.Schema {
	t.Helper()
	var schemas map[string]*tfprotov6.Schema
	for _, s := range servers {
		resp, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err != nil || resp.Provider == nil {
			t.Fatalf("schema: %v", err)
		}
		schemas = resp.ResourceSchemas
		cfg := buildValue(t, resp.Provider.ValueType(), map[string]any{"project": "proj", "location": "us-east5-b"})
		cr, err := s.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: dynamic(t, resp.Provider.ValueType(), cfg)})
		if err != nil || len(cr.Diagnostics) > 0 {
			t.Fatalf("configure: %v %v", err, cr.Diagnostics)
		}
	}
	return schemas
}

// planCreate is the framework's plan of creating config: the starting point of each case's prior state.
func planCreate(t testing.TB, ctx context.Context, s tfprotov6.ProviderServer, typeName string, typ tftypes.Type, config tftypes.Value) tftypes.Value {
	t.Helper()
	null := tftypes.NewValue(typ, nil)
	resp, err := s.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: typeName, PriorState: dynamic(t, typ, null), Config: dynamic(t, typ, config),
		ProposedNewState: dynamic(t, typ, config),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Fatalf("the base configuration of %s does not plan: %s: %s", typeName, d.Summary, d.Detail)
		}
	}
	v, err := resp.PlannedState.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func dynamic(t testing.TB, typ tftypes.Type, v tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

// buildValue makes a value of typ from Go values: maps for objects and maps, slices for lists, nil for null.
func buildValue(t testing.TB, typ tftypes.Type, x any) tftypes.Value {
	t.Helper()
	if x == nil {
		return tftypes.NewValue(typ, nil)
	}
	switch tt := typ.(type) {
	case tftypes.Object:
		m, _ := x.(map[string]any)
		attrs := map[string]tftypes.Value{}
		for name, at := range tt.AttributeTypes {
			attrs[name] = buildValue(t, at, m[name])
		}
		for name := range m {
			if _, ok := tt.AttributeTypes[name]; !ok {
				t.Fatalf("no attribute %q in %s", name, typ)
			}
		}
		return tftypes.NewValue(typ, attrs)
	case tftypes.Map:
		elems := map[string]tftypes.Value{}
		for k, v := range x.(map[string]any) {
			elems[k] = buildValue(t, tt.ElementType, v)
		}
		return tftypes.NewValue(typ, elems)
	case tftypes.List:
		var elems []tftypes.Value
		for _, v := range x.([]any) {
			elems = append(elems, buildValue(t, tt.ElementType, v))
		}
		return tftypes.NewValue(typ, elems)
	}
	switch v := x.(type) {
	case int:
		return tftypes.NewValue(typ, big.NewFloat(float64(v)))
	default:
		return tftypes.NewValue(typ, v)
	}
}

// diffGen makes the cases' variations.
type diffGen struct {
	rng      *rand.Rand
	defaults map[string]tftypes.Value
}

func (g diffGen) chance(p float64) bool { return g.rng.Float64() < p }

// leaf is another value of a primitive type: the default at key where there is one, or one of a few that the
// resources' checks and statuses care about.
func (g diffGen) leaf(typ tftypes.Type, key string, was tftypes.Value) tftypes.Value {
	if d, ok := g.defaults[key]; ok && g.chance(0.3) {
		return d
	}
	switch {
	case typ.Is(tftypes.String):
		pool := []string{"", "RUNNING", "ERROR", "RECONCILING", "x", "Never", "LowerPriority", "admitted", "2", "default", "us-east5-a", "proj"}
		return tftypes.NewValue(typ, pool[g.rng.IntN(len(pool))])
	case typ.Is(tftypes.Bool):
		return tftypes.NewValue(typ, g.chance(0.5))
	case typ.Is(tftypes.Number):
		pool := []int{0, 1, 2, 4, 8, 16}
		return tftypes.NewValue(typ, big.NewFloat(float64(pool[g.rng.IntN(len(pool))])))
	}
	return was
}

// fillUnknown gives every unknown value of a planned state a known one, as an apply would.
func (g diffGen) fillUnknown(v tftypes.Value, key string) tftypes.Value {
	if !v.IsKnown() {
		switch tt := v.Type().(type) {
		case tftypes.Map:
			return tftypes.NewValue(tt, map[string]tftypes.Value{})
		case tftypes.List:
			return tftypes.NewValue(tt, []tftypes.Value{})
		case tftypes.Set:
			return tftypes.NewValue(tt, []tftypes.Value{})
		case tftypes.Object:
			attrs := map[string]tftypes.Value{}
			for _, n := range slices.Sorted(maps.Keys(tt.AttributeTypes)) {
				attrs[n] = g.fillUnknown(tftypes.NewValue(tt.AttributeTypes[n], tftypes.UnknownValue), join(key, n))
			}
			return tftypes.NewValue(tt, attrs)
		}
		return g.leaf(v.Type(), key, v)
	}
	return g.mapChildren(v, key, g.fillUnknown)
}

// drift changes a few values of a prior state, as a refresh would after changes by hand or by GKE.
func (g diffGen) drift(b *tfprotov6.SchemaBlock, prior tftypes.Value) tftypes.Value {
	return g.driftValue(prior, "", 0.12)
}

func (g diffGen) driftValue(v tftypes.Value, key string, p float64) tftypes.Value {
	if v.IsNull() {
		return v
	}
	switch v.Type().(type) {
	case tftypes.Object, tftypes.List, tftypes.Map:
		if _, isMap := v.Type().(tftypes.Map); isMap && g.chance(p/2) {
			if g.chance(0.5) {
				return tftypes.NewValue(v.Type(), nil)
			}
			return tftypes.NewValue(v.Type(), map[string]tftypes.Value{"k": g.leaf(v.Type().(tftypes.Map).ElementType, key+".*", v)})
		}
		return g.mapChildren(v, key, func(c tftypes.Value, k string) tftypes.Value { return g.driftValue(c, k, p) })
	}
	if g.chance(p) {
		return g.leaf(v.Type(), key, v)
	}
	return v
}

// mapChildren visits children in name order: in Go's map order, one seed would make other cases on every run.
func (g diffGen) mapChildren(v tftypes.Value, key string, f func(tftypes.Value, string) tftypes.Value) tftypes.Value {
	if v.IsNull() || !v.IsKnown() {
		return v
	}
	switch v.Type().(type) {
	case tftypes.Object:
		var attrs map[string]tftypes.Value
		_ = v.As(&attrs)
		out := map[string]tftypes.Value{}
		for _, n := range slices.Sorted(maps.Keys(attrs)) {
			out[n] = f(attrs[n], join(key, n))
		}
		return tftypes.NewValue(v.Type(), out)
	case tftypes.Map:
		var elems map[string]tftypes.Value
		_ = v.As(&elems)
		out := map[string]tftypes.Value{}
		for _, n := range slices.Sorted(maps.Keys(elems)) {
			out[n] = f(elems[n], join(key, "*"))
		}
		return tftypes.NewValue(v.Type(), out)
	case tftypes.List:
		var elems []tftypes.Value
		_ = v.As(&elems)
		out := make([]tftypes.Value, len(elems))
		for i, a := range elems {
			out[i] = f(a, join(key, "*"))
		}
		return tftypes.NewValue(v.Type(), out)
	}
	return v
}

func join(key, name string) string {
	if key == "" {
		return name
	}
	return key + "." + name
}

// configOf is a configuration whose plan proposes prior itself, most of the time: configured values as in prior,
// computed ones left out, some optional+computed ones left out (so their Default applies), and now and then a
// setting removed or a value unknown.
func (g diffGen) configOf(b *tfprotov6.SchemaBlock, prior tftypes.Value) tftypes.Value {
	return g.configObject(b.Attributes, prior, "")
}

func (g diffGen) configObject(attrs []*tfprotov6.SchemaAttribute, prior tftypes.Value, key string) tftypes.Value {
	var pa map[string]tftypes.Value
	if err := prior.As(&pa); err != nil {
		panic(err)
	}
	out := map[string]tftypes.Value{}
	for _, a := range attrs {
		k := join(key, a.Name)
		pv := pa[a.Name]
		var cv tftypes.Value
		switch {
		case !a.Optional && !a.Required:
			cv = tftypes.NewValue(pv.Type(), nil)
		case a.Optional && a.Computed && g.chance(0.4):
			cv = tftypes.NewValue(pv.Type(), nil)
		case a.Optional && !a.Computed && g.chance(0.03):
			cv = tftypes.NewValue(pv.Type(), nil) // a setting removed
		case a.NestedType != nil && !pv.IsNull():
			cv = g.configNested(a.NestedType, pv, k)
		default:
			cv = pv
		}
		if !cv.IsNull() && a.NestedType == nil && g.chance(0.003) {
			cv = tftypes.NewValue(cv.Type(), tftypes.UnknownValue)
		}
		out[a.Name] = cv
	}
	return tftypes.NewValue(prior.Type(), out)
}

func (g diffGen) configNested(o *tfprotov6.SchemaObject, pv tftypes.Value, key string) tftypes.Value {
	switch o.Nesting {
	case tfprotov6.SchemaObjectNestingModeSingle:
		return g.configObject(o.Attributes, pv, key)
	case tfprotov6.SchemaObjectNestingModeList:
		var elems []tftypes.Value
		_ = pv.As(&elems)
		out := make([]tftypes.Value, len(elems))
		for i, e := range elems {
			out[i] = g.configObject(o.Attributes, e, key+".*")
		}
		return tftypes.NewValue(pv.Type(), out)
	}
	return pv
}

// proposedNew is Terraform's proposed new state for these schemas: the configuration, with the prior value wherever
// a computed attribute is not configured, nested objects attribute by attribute (lists element by element).
func proposedNew(b *tfprotov6.SchemaBlock, prior, config tftypes.Value) tftypes.Value {
	return proposedObject(b.Attributes, prior, config)
}

func proposedObject(attrs []*tfprotov6.SchemaAttribute, prior, config tftypes.Value) tftypes.Value {
	if config.IsNull() || !config.IsKnown() || prior.IsNull() {
		return config
	}
	var pa, ca map[string]tftypes.Value
	_ = prior.As(&pa)
	_ = config.As(&ca)
	out := map[string]tftypes.Value{}
	for _, a := range attrs {
		pv, cv := pa[a.Name], ca[a.Name]
		switch {
		case a.Computed && cv.IsNull():
			out[a.Name] = pv
		case a.NestedType != nil && a.NestedType.Nesting == tfprotov6.SchemaObjectNestingModeSingle:
			out[a.Name] = proposedObject(a.NestedType.Attributes, pv, cv)
		case a.NestedType != nil && a.NestedType.Nesting == tfprotov6.SchemaObjectNestingModeList && !pv.IsNull() && cv.IsKnown() && !cv.IsNull():
			var pe, ce []tftypes.Value
			_ = pv.As(&pe)
			_ = cv.As(&ce)
			res := make([]tftypes.Value, len(ce))
			for i := range ce {
				if i < len(pe) {
					res[i] = proposedObject(a.NestedType.Attributes, pe[i], ce[i])
				} else {
					res[i] = ce[i]
				}
			}
			out[a.Name] = tftypes.NewValue(cv.Type(), res)
		default:
			out[a.Name] = cv
		}
	}
	return tftypes.NewValue(config.Type(), out)
}

// TestPlanShortcutCoversEveryDefault fails when a short-cut type gains a Default or plan modifier the shortcut does
// not account for: planShortcut must be taught it (or the type taken off the list) before the test passes again.
func TestPlanShortcutCoversEveryDefault(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fs, _ := NewServer(&dwsProvider{version: "test"})()
	s := fs.(*server)
	s.valueType(ctx, "")
	// The types that opt in: a configuration has many of them, or every configuration has them.
	for _, name := range []string{"dwsfallback_rayjob", "dwsfallback_tpu_pool_pair", "dwsfallback_gpu_pool_pair", "dwsfallback_kueue_queue"} {
		ps := s.plans[name]
		if ps == nil {
			t.Errorf("%s: no shortcut built", name)
			continue
		}
		if ps.unsupported != "" {
			t.Errorf("%s: %s", name, ps.unsupported)
		}
	}
	// The rayjob's defaults at every depth, as the schema states them.
	want := []string{"elastic", "files_mount_path", "gpu_workers.group_name", "gpu_workers.max_replicas", "gpu_workers.min_replicas",
		"gpu_workers.replicas", "namespace", "resubmit_when_deleted", "shutdown_after_job_finishes", "tpu_workers.group_name",
		"tpu_workers.max_replicas", "tpu_workers.min_replicas", "tpu_workers.replicas", "wait_for"}
	var got []string
	for k := range s.plans["dwsfallback_rayjob"].defaults {
		got = append(got, k)
	}
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rayjob defaults (-want +got):\n%s", diff)
	}
}
