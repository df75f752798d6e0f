package provider

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	k8sdynamic "k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/drift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
)

// driftTally counts, per kind, what the generated drift test did with each change it tried.
type driftTally struct {
	tried, planned, repaired map[string]int
	refused, undone          map[string][]string
}

func newDriftTally() *driftTally {
	return &driftTally{tried: map[string]int{}, planned: map[string]int{}, repaired: map[string]int{}, refused: map[string][]string{}, undone: map[string][]string{}}
}

func (d *driftTally) report(t *testing.T) {
	kinds := slices.Sorted(maps.Keys(d.tried))
	for _, k := range kinds {
		t.Logf("%s: %d changes tried: %d planned (%d of them applied, which repaired them), %d refused by the API, %d undone by the API itself",
			k, d.tried[k], d.planned[k], d.repaired[k], len(d.refused[k]), len(d.undone[k]))
		for _, r := range d.refused[k] {
			t.Logf("  refused: %s", r)
		}
		for _, u := range d.undone[k] {
			t.Logf("  undone (the API put the value back, e.g. its default): %s", u)
		}
		if d.repaired[k] == 0 {
			t.Errorf("%s: no change made it to the plan; the test did not exercise the kind", k)
		}
	}
}

// tryDrift makes every change drift.Mutations finds for the manager's fields of each object (as another field
// manager, with a JSON patch; inside a field the API replaces whole, one planned change per shape), and requires
// each one the API accepts to plan a change that the apply repairs, with an empty plan after.
func tryDrift(t *testing.T, tf *tfRun, dyn k8sdynamic.Interface, tally *driftTally, gvr schema.GroupVersionResource, ns, name string, repairInside bool) {
	t.Helper()
	ctx := context.Background()
	api := dyn.Resource(gvr).Namespace(ns)
	obj, err := api.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kind := obj.GetKind()
	var ms []drift.Mutation
	if b, ok := stateBaseline(t, tf, kind, ns, name); ok {
		ms, err = drift.BaselineMutations(b)
	} else {
		ms, err = drift.Mutations(obj.Object, kube.FieldManager)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 {
		t.Fatalf("%s %s: the provider owns no field of it", kind, name)
	}
	// Inside a field the API replaces whole, like changes of like items take one path: once one of a shape has
	// reached the plan, its siblings are skipped; one the API refused or undid leaves the next sibling to be tried.
	covered := map[string]bool{}
	tried := 0
	defer func() {
		t.Logf("%s %s: %d changes, %d tried (siblings of a shape that reached the plan skipped)", kind, name, len(ms), tried)
	}()
	for _, m := range ms {
		shape := m.ShapeKey() // before an enum's other value renames the change
		if shape != "" && covered[shape] {
			continue
		}
		tried++
		tally.tried[kind]++
		before, err := api.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		after, err := api.Patch(ctx, name, types.JSONPatchType, m.Patch, metav1.PatchOptions{FieldManager: "drift-test"})
		if alt, ok := supportedInstead(m, err); ok {
			// An enum: the API's refusal names the values it takes, and another of them is the change to try.
			m.What += " to " + alt.value
			after, err = api.Patch(ctx, name, types.JSONPatchType, alt.patch, metav1.PatchOptions{FieldManager: "drift-test"})
		}
		if err != nil {
			tally.refused[kind] = append(tally.refused[kind], fmt.Sprintf("%s %s: %v", name, m, err))
			continue
		}
		if after.GetResourceVersion() == before.GetResourceVersion() {
			tally.undone[kind] = append(tally.undone[kind], name+" "+m.String())
			continue
		}
		if shape != "" {
			covered[shape] = true // a comparison that misses one sibling misses them all: one error is enough
		}
		if m.Inside != "" && !repairInside {
			// A part of a field the API replaces whole: the field's own changes were repaired by an apply, and the
			// resource repairs every change of it the same way (for a RayJob, a new run), so the part is planned
			// and put back.
			if out, code := tf.planExit(); code != 2 {
				t.Errorf("%s %s: %s: plan exit %d, want 2 (changes):\n%s", kind, name, m, code, out)
			} else {
				tally.planned[kind]++
			}
			putBack(t, api, before, after)
			continue
		}
		out, changed, ok := tf.applyDrift()
		if !ok && strings.Contains(out, "\nPlan: ") {
			// The plan showed the change and the apply failed: the repair itself is broken, which stops the test.
			t.Fatalf("%s %s: %s: the apply failed:\n%s", kind, name, m, out)
		}
		if !ok || !changed {
			what := "the plan found no change, so the apply made none"
			if !ok {
				what = "terraform failed in its plan"
			}
			t.Errorf("%s %s: %s: %s:\n%s", kind, name, m, what, out)
			putBack(t, api, before, after)
			continue
		}
		tally.planned[kind]++
		if out, code := tf.planExit(); code != 0 {
			t.Fatalf("%s %s: %s: the plan after the repair is not empty (exit %d):\n%s", kind, name, m, code, out)
		}
		tally.repaired[kind]++
	}
}

// putBack undoes a change the test made: the spec (or data), labels and annotations as they were before it, on the object as it
// is now (Kueue and KubeRay write it too, so a conflict is tried again).
func putBack(t *testing.T, api k8sdynamic.ResourceInterface, before, _ *unstructured.Unstructured) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		now, err := api.Get(context.Background(), before.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		// Every top-level field but the object's metadata and status: a ConfigMap's data is one of them.
		for k := range now.Object {
			if _, ok := before.Object[k]; !ok && k != "metadata" && k != "status" {
				delete(now.Object, k)
			}
		}
		for k, v := range before.Object {
			if k != "metadata" && k != "status" {
				now.Object[k] = v
			}
		}
		now.SetLabels(before.GetLabels())
		now.SetAnnotations(before.GetAnnotations())
		_, err = api.Update(context.Background(), now, metav1.UpdateOptions{FieldManager: "drift-test"})
		return err
	})
	if err != nil {
		t.Fatalf("putting %s %s back: %v", before.GetKind(), before.GetName(), err)
	}
}

// planeTurnMu lets the tests that start control planes of their own (the generated drift tests of the
// Kubernetes-backed kinds, the multi-region example) run one at a time, while the soak runs beside them (PLANE_TESTS
// in GNUmakefile).
var planeTurnMu sync.Mutex

func planeTurn(t *testing.T) {
	planeTurnMu.Lock()
	t.Cleanup(planeTurnMu.Unlock)
}

// TestAccDrift_queueGenerated changes, one at a time, every field the queue's apply set on each of its objects, as
// another writer would, and requires the plan to show it and the apply to repair it.
func TestAccDrift_queueGenerated(t *testing.T) {
	t.Parallel()
	planeTurn(t)
	requireStack(t)
	ref := createTestCluster(t, "acc-drift-q")
	tf := newTFRunInProcess(t, "provider \"dwsfallback\" {}\n"+queueConfig(ref.Name, "dq", 16))
	tf.mustRun("apply", "-auto-approve", "-input=false")
	tf.expectEmptyPlan()
	_, c := soakPlane(t, ref.String())
	gv := kueue.GroupVersion
	tally := newDriftTally()
	for _, o := range []struct {
		resource, ns string
	}{{"clusterqueues", ""}, {"resourceflavors", ""}, {"admissionchecks", ""}, {"provisioningrequestconfigs", ""}, {"localqueues", "default"}} {
		gvr := gv.WithResource(o.resource)
		list, err := c.Dynamic.Resource(gvr).Namespace(o.ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		names := ownedBy(list.Items, kube.FieldManager, "dq-") // the plane may hold other tests' queues
		sort.Strings(names)
		if len(names) == 0 {
			t.Fatalf("no %s written by the provider", o.resource)
		}
		for _, n := range names {
			tryDrift(t, tf, c.Dynamic, tally, gvr, o.ns, n, true)
		}
	}
	tally.report(t)
	// The two queue cases, verbatim: a queue held by hand, a namespace selector removed.
	cq := c.Dynamic.Resource(gv.WithResource("clusterqueues"))
	handChange(t, tf, cq, "dq-cluster-queue", types.MergePatchType, `{"spec":{"stopPolicy":"HoldAndDrain"}}`, ".spec.stopPolicy")
	handChange(t, tf, cq, "dq-cluster-queue", types.JSONPatchType, `[{"op":"remove","path":"/spec/namespaceSelector"}]`, ".spec.namespaceSelector")
	tf.mustRun("destroy", "-auto-approve", "-input=false")
}

// handChange makes one change as kubectl patch would, and requires the plan to name the path in drift, the apply
// to repair it, and the plan after to be empty.
func handChange(t *testing.T, tf *tfRun, api k8sdynamic.ResourceInterface, name string, pt types.PatchType, patch, path string) {
	t.Helper()
	if _, err := api.Patch(context.Background(), name, pt, []byte(patch), metav1.PatchOptions{FieldManager: "kubectl-patch"}); err != nil {
		t.Fatal(err)
	}
	out, code := tf.planExit()
	if code != 2 || !strings.Contains(out, path) {
		t.Fatalf("after %s, the plan should name %s in drift (exit %d):\n%s", patch, path, code, out)
	}
	tf.mustRun("apply", "-auto-approve", "-input=false")
	if out, code := tf.planExit(); code != 0 {
		t.Fatalf("after repairing %s, the plan is not empty (exit %d):\n%s", patch, code, out)
	}
}

// ownedBy names the objects of the prefix that have fields of manager's.
func ownedBy(items []unstructured.Unstructured, manager, prefix string) []string {
	var out []string
	for _, it := range items {
		if !strings.HasPrefix(it.GetName(), prefix) {
			continue
		}
		for _, e := range it.GetManagedFields() {
			if e.Manager == manager {
				out = append(out, it.GetName())
				break
			}
		}
	}
	return out
}

type enumChange struct {
	value string
	patch []byte
}

var supportedValues = regexp.MustCompile(`Unsupported value: "([^"]*)": supported values: ((?:"[^"]*"(?:, )?)+)`)

// supportedInstead turns a change the API refused as an unsupported enum value into one to another value it named.
func supportedInstead(m drift.Mutation, err error) (enumChange, bool) {
	if err == nil || m.What != "change" {
		return enumChange{}, false
	}
	match := supportedValues.FindStringSubmatch(err.Error())
	if match == nil {
		return enumChange{}, false
	}
	var ops []map[string]any
	if json.Unmarshal(m.Patch, &ops) != nil || len(ops) != 2 {
		return enumChange{}, false
	}
	was, _ := ops[0]["value"].(string)
	for _, v := range regexp.MustCompile(`"([^"]*)"`).FindAllStringSubmatch(match[2], -1) {
		if v[1] != was {
			ops[1]["value"] = v[1]
			b, err := json.Marshal(ops)
			if err != nil {
				return enumChange{}, false
			}
			return enumChange{v[1], b}, true
		}
	}
	return enumChange{}, false
}

// TestAccDrift_rayJobGenerated does the same for a RayJob that Kueue admitted, and for its files' ConfigMap: every
// field the create set, changed as another writer would, plans a new run that puts it right; what Kueue added when it admitted the job (the
// flavor's node labels, its own labels, the lifted suspend) plans nothing. The case is among them: an extra
// toleration on the workers.
func TestAccDrift_rayJobGenerated(t *testing.T) {
	t.Parallel()
	planeTurn(t)
	requireStack(t)
	ref := createTestCluster(t, "acc-drift-j")
	config := "provider \"dwsfallback\" {}\n" + pairConfig(ref.Name, "on-demand-pool", "dws-pool", 4) +
		queueConfig(ref.Name, "dj", 16) + jobsConfig(ref.Name, "dj", []int{1}, "")
	tf := newTFRunInProcess(t, config)
	tf.mustRun("apply", "-auto-approve", "-input=false")
	tf.expectEmptyPlan()
	_, c := soakPlane(t, ref.String())
	tally := newDriftTally()
	tryDrift(t, tf, c.Dynamic, tally, rayv1.GroupVersion.WithResource("rayjobs"), "default", "dj-rayjob-1", false)
	// The job's files: what the job runs, so a change of them plans a new run too.
	configMaps := corev1.SchemeGroupVersion.WithResource("configmaps")
	tryDrift(t, tf, c.Dynamic, tally, configMaps, "default", "dj-rayjob-1-files", false)
	tally.report(t)
	handChange(t, tf, c.Dynamic.Resource(configMaps).Namespace("default"), "dj-rayjob-1-files", types.MergePatchType,
		`{"binaryData":{"extra.bin":"AA=="}}`, "ConfigMap/default/dj-rayjob-1-files .binaryData")
	// The case, verbatim: an extra toleration on the job's workers.
	handChange(t, tf, c.Dynamic.Resource(rayv1.GroupVersion.WithResource("rayjobs")).Namespace("default"), "dj-rayjob-1", types.JSONPatchType,
		`[{"op":"add","path":"/spec/rayClusterSpec/workerGroupSpecs/0/template/spec/tolerations/-","value":{"key":"x","operator":"Exists","effect":"NoSchedule"}}]`,
		".spec.rayClusterSpec.workerGroupSpecs")
	tf.mustRun("destroy", "-auto-approve", "-input=false")
}

// stateBaseline is the baseline the provider kept for an object in its private state, when there is one: the fields
// its write set, which the live managedFields no longer show once Kueue has taken some over.
func stateBaseline(t *testing.T, tf *tfRun, kind, ns, name string) (drift.Baseline, bool) {
	t.Helper()
	key := kind + "/" + name
	if ns != "" {
		key = kind + "/" + ns + "/" + name
	}
	for _, raw := range privateRecords(t, tf, tfdrift.PrivateKey) {
		var all map[string]drift.Baseline
		if json.Unmarshal(raw, &all) != nil {
			continue
		}
		if b, ok := all[key]; ok {
			return b, true
		}
	}
	return drift.Baseline{}, false
}

// privateRecords are the records every resource instance keeps under key in its private state (terraform.tfstate
// holds each instance's private state, base64).
func privateRecords(t *testing.T, tf *tfRun, key string) [][]byte {
	t.Helper()
	var out [][]byte
	resources, _ := readState(t, tf.dir)["resources"].([]any)
	for _, r := range resources {
		instances, _ := r.(map[string]any)["instances"].([]any)
		for _, in := range instances {
			p, _ := in.(map[string]any)["private"].(string)
			raw, err := base64.StdEncoding.DecodeString(p)
			if err != nil || len(raw) == 0 {
				continue
			}
			var keys map[string][]byte
			if json.Unmarshal(raw, &keys) == nil && len(keys[key]) > 0 {
				out = append(out, keys[key])
			}
		}
	}
	return out
}
