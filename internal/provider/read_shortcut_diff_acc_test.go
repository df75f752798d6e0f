package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/resources/rayjob"
)

// readDiffCases is how many refreshes the differential test of the RayJob read shortcut compares.
const readDiffCases = 240

// TestAccReadShortcutMatchesFramework is the differential test of the RayJob refresh shortcut (server.readScalars, the RayJob's ReadScalars):
// each case refreshes a job through the provider's server and through the plain framework server, against the same
// live objects on the local stack, and the answers must be equal. The states are the ones Terraform wrote, drifted
// at random (status, managed settings, now and then the job's identity); the live jobs are patched with kubectl
// between cases (each managed field of TestAccRayJob_driftByKubectl), their ConfigMaps edited, and one deleted.
// Seeded: a failure names a case that can be run again. Kueue and KubeRay go on changing the jobs' status meanwhile,
// so a case whose two answers differ is read again, both sides, up to three times: a fault of the shortcut does not
// go away on a second read, a status that moved between the two reads does.
func TestAccReadShortcutMatchesFramework(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-rdiff"))
	tf := newTFRunInProcess(t, "provider \"dwsfallback\" {}\n"+pairConfig("acc-rdiff", "on-demand-pool", "dws-pool", 4)+
		queueConfig("acc-rdiff", "rdiff", 16)+jobsConfig("acc-rdiff", "rdiff", []int{1, 2, 3}, `wait_for = "none"`))
	t.Cleanup(func() { tf.run("destroy", "-auto-approve", "-input=false") })
	tf.mustRun("apply", "-auto-approve", "-input=false")

	ctx := context.Background()
	backoff := gke.Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, Multiplier: 1.5}
	fast, err := NewServer(&dwsProvider{version: "test", backoff: backoff})()
	if err != nil {
		t.Fatal(err)
	}
	plain, err := providerserver.NewProtocol6WithError(&dwsProvider{version: "test", backoff: backoff})()
	if err != nil {
		t.Fatal(err)
	}
	var typ tftypes.Type
	for _, s := range []tfprotov6.ProviderServer{fast, plain} {
		resp, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err != nil {
			t.Fatal(err)
		}
		typ = resp.ResourceSchemas["dwsfallback_rayjob"].ValueType()
		cfg := buildValue(t, resp.Provider.ValueType(), map[string]any{}) // the rest from the environment, as for the tests' terraform
		if cr, err := s.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: dynamic(t, resp.Provider.ValueType(), cfg)}); err != nil || len(cr.Diagnostics) > 0 {
			t.Fatalf("configure: %v %v", err, cr.Diagnostics)
		}
	}

	idTyp := identityTypes(t, ctx, plain)["dwsfallback_rayjob"]
	var states []tftypes.Value
	for _, r := range readState(t, tf.dir)["resources"].([]any) {
		r := r.(map[string]any)
		if r["type"] != "dwsfallback_rayjob" {
			continue
		}
		b, _ := json.Marshal(r["instances"].([]any)[0].(map[string]any)["attributes"])
		v, err := (&tfprotov6.RawState{JSON: b}).UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{})
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, v)
	}
	if len(states) != 3 {
		t.Fatalf("want the 3 jobs' states, have %d", len(states))
	}

	worker, head := "/spec/rayClusterSpec/workerGroupSpecs/0", "/spec/rayClusterSpec/headGroupSpec/template/spec"
	patches := []struct{ kind, patch string }{
		{"merge", `{"spec":{"entrypoint":"python /app/other.py"}}`},
		{"merge", `{"spec":{"runtimeEnvYAML":"pip:\n- jax==0.1\n"}}`},
		{"json", `[{"op":"replace","path":"` + head + `/containers/0/image","value":"rayproject/ray:2.9.0"}]`},
		{"json", `[{"op":"replace","path":"` + head + `/containers/0/resources/requests/cpu","value":"3"}]`},
		{"json", `[{"op":"replace","path":"` + worker + `/replicas","value":2}]`},
		{"json", `[{"op":"replace","path":"` + head + `/nodeSelector/cloud.google.com~1gke-nodepool","value":"other-pool"}]`},
		{"json", `[{"op":"add","path":"` + head + `/containers/0/env","value":[{"name":"A","value":"b"}]}]`},
		{"merge", `{"metadata":{"labels":{"team":"b","kueue.x-k8s.io/extra":"x"}}}`},
		{"merge", `{"metadata":{"annotations":{"note":"x"}}}`},
	}
	names := []string{"rdiff-rayjob-1", "rdiff-rayjob-2", "rdiff-rayjob-3"}
	rng := rand.New(rand.NewPCG(diffSeed, 7))
	identity := []string{"cluster", "name", "namespace", "project", "location", "id"}
	held := make([]*tfprotov6.ResourceIdentityData, len(states)) // the identity Terraform would hold for each job
	deleted, answered := -1, 0                                   // the job deleted, once; the cases the shortcut answered itself
	for i := range readDiffCases {
		j := rng.IntN(len(states))
		switch k := rng.IntN(10); {
		case j == deleted:
		case k < 3:
			p := patches[rng.IntN(len(patches))]
			cp.kubectl("", "patch", "rayjob", names[j], "--type="+p.kind, "-p", p.patch)
		case k == 3:
			cp.kubectl("", "patch", "configmap", names[j]+"-files", "--type=merge", "-p", fmt.Sprintf(`{"data":{"train.py":"print(%d)\n"}}`, i))
		case k == 4 && deleted < 0 && i > readDiffCases/2:
			cp.kubectl("", "delete", "rayjob", names[j], "--wait=false")
			deleted = j
		}
		st := states[j]
		if rng.IntN(2) == 1 {
			g := diffGen{rng: rng}
			drifted := g.driftValue(st, "", 0.1)
			if rng.IntN(5) > 0 { // mostly the same job, its settings and status drifted
				drifted = withAttrs(t, drifted, st, identity)
			}
			st = drifted
		}
		req := &tfprotov6.ReadResourceRequest{TypeName: "dwsfallback_rayjob", CurrentState: dynamic(t, typ, st)}
		// Terraform 1.12 and later send the identity they hold: mostly the job's, once in a while another one.
		switch rng.IntN(4) {
		case 1:
			req.CurrentIdentity = held[j]
		case 2:
			req.CurrentIdentity = priorIdentity(t, idTyp, "other")
		}
		forgetAllShared()
		if fast.(*server).readScalars(ctx, req) != nil {
			answered++
		}
		var want, got readAnswer
		var wantState tftypes.Value
		for try := 0; ; try++ {
			forgetAllShared()
			gr, err1 := fast.ReadResource(ctx, req)
			forgetAllShared()
			wr, err2 := plain.ReadResource(ctx, req)
			if err1 != nil || err2 != nil {
				t.Fatalf("case %d: errors %v / %v", i, err1, err2)
			}
			got, want = readAnswerOf(t, typ, idTyp, gr), readAnswerOf(t, typ, idTyp, wr)
			if wr.NewState != nil {
				wantState, _ = wr.NewState.Unmarshal(typ)
			}
			if wr.NewIdentity != nil && len(wr.Diagnostics) == 0 {
				held[j] = wr.NewIdentity
			}
			if cmp.Equal(want, got) || try == 2 {
				break
			}
			time.Sleep(2 * time.Second)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("case %d (job %s): the read shortcut's answer differs from the framework's (-framework +shortcut):\n%s\nstate: %s",
				i, names[j], diff, st)
		}
		// Terraform keeps what a refresh read: the next refresh of this job starts from it, mostly.
		if !wantState.IsNull() && rng.IntN(4) > 0 {
			states[j] = wantState
		}
	}
	// The generator must reach the shortcut often, and miss it often: both sides are the test.
	if answered < readDiffCases/10 || answered > readDiffCases*9/10 {
		t.Errorf("the shortcut answered %d of %d refreshes; the generator should make both kinds common", answered, readDiffCases)
	}
	t.Logf("%d refreshes compared, %d answered by the shortcut", readDiffCases, answered)
}

// withAttrs is v with the attributes names taken from from.
func withAttrs(t *testing.T, v, from tftypes.Value, names []string) tftypes.Value {
	t.Helper()
	var va, fa map[string]tftypes.Value
	if err := v.As(&va); err != nil {
		t.Fatal(err)
	}
	if err := from.As(&fa); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		va[n] = fa[n]
	}
	return tftypes.NewValue(v.Type(), va)
}

// forgetAllShared drops every shared LIST, so that each side of a case reads the objects as they are now.
func forgetAllShared() {
	rayjob.ForgetSharedReads()
}

type readAnswer struct {
	State       string
	Private     []byte
	Diagnostics []string
	Identity    string
}

func readAnswerOf(t *testing.T, typ, idTyp tftypes.Type, r *tfprotov6.ReadResourceResponse) readAnswer {
	t.Helper()
	out := readAnswer{Identity: identityText(t, idTyp, r.NewIdentity)}
	if r.NewState != nil {
		v, err := r.NewState.Unmarshal(typ)
		if err != nil {
			t.Fatal(err)
		}
		out.State = v.String()
	}
	if len(r.Private) > 0 {
		out.Private = r.Private
	}
	for _, d := range r.Diagnostics {
		out.Diagnostics = append(out.Diagnostics, fmt.Sprintf("%v %s: %s", d.Severity, d.Summary, d.Detail))
	}
	slices.Sort(out.Diagnostics)
	return out
}
