package provider

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkedrift"
)

// TestAccDrift_poolPairGenerated changes, one at a time, every field of both pools' create requests (as GKE made
// them, from the provider's private state) on the emulator, as an edit in the console or by another API client
// would, and requires the plan to name the pool and the field, the apply to repair it (in place, by recreating that
// pool, or by replacing the pair where the resource replaces), and the plan after to be empty.
func TestAccDrift_poolPairGenerated(t *testing.T) {
	t.Parallel() // GKE only, on clusters of their own
	addReservation(t, "acc-drift-res", 8)
	if err := emu.AddImage(testProject, "ray-tpu-preloaded"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		config func(cluster string) string
	}{
		// The tutorial's pair: plan B with queued provisioning.
		{"tutorial", func(cluster string) string { return pairConfig(cluster, "od", "dws", 4) }},
		// The pair of a ComputeClass: node labels and taints, and plan B without queued provisioning; a boot disk,
		// gVNIC and plan A's surge upgrades other than GKE's defaults, plan B's auto-repair off; a disk of preloaded
		// images, in another zone of the region.
		{"class", func(cluster string) string {
			c := strings.Replace(pairConfig(cluster, "od", "dws", 4), `{ name = "od" }`, `{ name = "od", max_surge = 2, max_unavailable = 1 }`, 1)
			return strings.Replace(c, `  flex_start   = { name = "dws" }`,
				`compute_class = "tpu-fallback"`+"\n"+`flex_start = { name = "dws", provisioning = "flex-start-unqueued", auto_repair = false }`+"\n"+
					`disk_size_gb = 200`+"\n"+`gvnic = true`+"\n"+preloaded+"\n"+`node_locations = ["us-east5-a"]`, 1)
		}},
		// Plan A on a specific reservation, plan B with a run limit.
		{"reservation", func(cluster string) string {
			return strings.NewReplacer(`"on-demand-pool"`, `"od"`, `"dws-pool"`, `"dws"`).Replace(reservationPairConfig(cluster, "acc-drift-res", "86400s"))
		}},
		// GPUs and their driver; plan B with auto-repair off and autoscaling over all zones, as the DWS docs make it;
		// plan A with blue-green upgrades.
		{"gpu", func(cluster string) string {
			return strings.Replace(gpuPairConfig(cluster, "flex-start"), `{ name = "od" }`,
				`{ name = "od", blue_green = { node_pool_soak_duration = "600s", batch_node_count = 1, batch_soak_duration = "60s" } }`, 1)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ref := createTestCluster(t, "acc-drift-g"+c.name)
			tryPoolDrift(t, ref, newTFRunInProcess(t, "provider \"dwsfallback\" {}\n"+c.config(ref.Name)), "od", "dws")
		})
	}
}

func tryPoolDrift(t *testing.T, ref clusterscope.Ref, tf *tfRun, pools ...string) {
	t.Helper()
	tf.mustRun("apply", "-auto-approve", "-input=false")
	tf.expectEmptyPlan()
	for _, pool := range pools {
		base := statePoolBaseline(t, tf, pool)
		tried, repaired := 0, 0
		var refused []string
		for _, field := range gkedrift.Leaves(base, gkedrift.ZeroFields...) {
			tried++
			if field == "name" {
				refused = append(refused, "name: a pool's name is its identity; GKE renames no pool")
				continue
			}
			value, what := otherValue(t, base, field)
			if err := emu.Edit(ref.String()+"/nodePools/"+pool, field, value); err != nil {
				t.Fatalf("%s: editing %s: %v", pool, field, err)
			}
			named := "NodePool/" + pool + " ." + field
			out, changed, ok := tf.applyDrift()
			if !ok || !changed || !strings.Contains(out, named) {
				t.Fatalf("%s %s (%s): the plan should name %q in drift, and the apply repair it (terraform ok %t, changed %t):\n%s", pool, field, what, named, ok, changed, out)
			}
			if out, code := tf.planExit(); code != 0 {
				t.Fatalf("%s %s (%s): the plan after the repair is not empty (exit %d):\n%s", pool, field, what, code, out)
			}
			if d := gkedrift.PoolDiff(base, testPools(t, ref)[pool]); len(d) > 0 {
				t.Fatalf("%s %s (%s): after the repair the pool still differs in %v", pool, field, what, d)
			}
			repaired++
		}
		t.Logf("%s: node pool %s: %d fields of its create request tried, %d planned and repaired, %d refused: %v", t.Name(), pool, tried, repaired, len(refused), refused)
	}
	tf.mustRun("destroy", "-auto-approve", "-input=false")
}

// otherValue is a change of field in the JSON form of np, as another writer would make it: another value of a scalar
// or an enum, an extra item in a list of strings or a map, a list of messages removed.
func otherValue(t *testing.T, np proto.Message, field string) (json.RawMessage, string) {
	t.Helper()
	m := np.ProtoReflect()
	parts := strings.Split(field, ".")
	for _, p := range parts[:len(parts)-1] {
		m = m.Get(m.Descriptor().Fields().ByJSONName(p)).Message()
	}
	fd := m.Descriptor().Fields().ByJSONName(parts[len(parts)-1])
	v := m.Get(fd)
	var out any
	var what string
	switch {
	case fd.IsMap():
		extra := map[string]string{"drift-test": "x"}
		v.Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool { extra[k.String()] = v.String(); return true })
		out, what = extra, "an extra key"
	case fd.IsList() && fd.Message() == nil:
		var items []string
		for i := range v.List().Len() {
			items = append(items, v.List().Get(i).String())
		}
		out, what = append(items, "drift-test"), "an extra item"
	case fd.IsList() && v.List().Len() == 0:
		out, what = []json.RawMessage{newItem(t, m.NewField(fd).List().NewElement().Message())}, "an item added"
	case fd.IsList():
		out, what = []any{}, "removed"
	case fd.Message() != nil && fd.Message().FullName() == "google.protobuf.Duration":
		d, _ := v.Message().Interface().(*durationpb.Duration)
		out, what = fmt.Sprintf("%ds", d.GetSeconds()+1), "another duration"
	case fd.Enum() != nil:
		values := fd.Enum().Values()
		for i := range values.Len() {
			if ev := values.Get(i); ev.Number() != 0 && ev.Number() != v.Enum() {
				out = string(ev.Name())
				break
			}
		}
		what = fmt.Sprintf("enum to %v", out)
	case fd.Kind() == protoreflect.BoolKind:
		out, what = !v.Bool(), "flipped"
	case fd.Kind() == protoreflect.StringKind:
		out, what = v.String()+"-drift", "another string"
	case fd.Kind() == protoreflect.Int32Kind || fd.Kind() == protoreflect.Int64Kind:
		out, what = v.Int()+1, "another number"
	case fd.Kind() == protoreflect.FloatKind || fd.Kind() == protoreflect.DoubleKind:
		out, what = 0.5, "another share"
		if v.Float() == 0.5 {
			out = 0.25
		}
	default:
		t.Fatalf("%s: no change known for a %v", field, fd.Kind())
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return b, what
}

// newItem is an item of a list of messages, as another writer would add one: its strings and its enums set.
func newItem(t *testing.T, m protoreflect.Message) json.RawMessage {
	t.Helper()
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		switch {
		case f.IsList() || f.IsMap():
		case f.Kind() == protoreflect.StringKind:
			m.Set(f, protoreflect.ValueOfString("drift-test"))
		case f.Enum() != nil && f.Enum().Values().Len() > 1:
			m.Set(f, protoreflect.ValueOfEnum(f.Enum().Values().Get(1).Number()))
		}
	}
	b, err := protojson.Marshal(m.Interface())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// statePoolBaseline is the pool the provider's last apply asked GKE for, from its private state in terraform.tfstate.
func statePoolBaseline(t *testing.T, tf *tfRun, pool string) *containerpb.NodePool {
	t.Helper()
	for _, raw := range privateRecords(t, tf, "pool_baselines") {
		var all map[string]json.RawMessage
		if json.Unmarshal(raw, &all) != nil || all[pool] == nil {
			continue
		}
		np := &containerpb.NodePool{}
		if err := protojson.Unmarshal(all[pool], np); err != nil {
			t.Fatal(err)
		}
		return np
	}
	t.Fatalf("no baseline of node pool %s in the state's private data", pool)
	return nil
}
