package tfdrift

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/drift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// PrivateKey keeps, per object ("Kind/name", or "Kind/namespace/name"), what the provider's last write left on
// it (drift.Baseline): Read compares the live object with it.
const PrivateKey = "baselines"

// Object is one object the resource wrote, as read now, with the key its baseline is kept under.
type Object struct {
	Key string
	GVK k8sschema.GroupVersionKind
	Obj runtime.Object
}

// Unstructured gives the object as the API server's JSON, with the apiVersion and kind typed clients leave out.
func Unstructured(o Object) (map[string]any, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o.Obj)
	if err != nil {
		return nil, err
	}
	m["apiVersion"], m["kind"] = o.GVK.GroupVersion().String(), o.GVK.Kind
	return m, nil
}

// Recorder makes one object's baseline from the live object the write left; drift.ErrNotManaged leaves it out.
type Recorder func(ty *drift.Types, key string, live map[string]any) (drift.Baseline, error)

// ByManager records the fields that are the provider's field manager's (a server-side apply) and their values.
func ByManager(ty *drift.Types, _ string, live map[string]any) (drift.Baseline, error) {
	return ty.Record(live, kube.FieldManager)
}

// ByWritten records objects written by a plain update, which makes the writer the owner of only the fields it
// changed: the fields are those of what was written (by key), the values the live object's.
func ByWritten(written map[string]Object) Recorder {
	return func(ty *drift.Types, key string, live map[string]any) (drift.Baseline, error) {
		w, ok := written[key]
		if !ok {
			return drift.Baseline{}, errors.New("not among the objects written")
		}
		want, err := Unstructured(w)
		if err != nil {
			return drift.Baseline{}, err
		}
		return ty.RecordWritten(live, want)
	}
}

// Take records what the last write left on each object, as the server answered.
func Take(ty *drift.Types, objs []Object, record Recorder) (map[string]drift.Baseline, error) {
	out := map[string]drift.Baseline{}
	for _, o := range objs {
		m, err := Unstructured(o)
		if err != nil {
			return nil, err
		}
		b, err := record(ty, o.Key, m)
		if errors.Is(err, drift.ErrNotManaged) {
			continue // kept as another writer made it: the resource does not own a field of it
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Key, err)
		}
		out[o.Key] = b
	}
	return out, nil
}

// Of names what differs between each live object and its baseline, as "Kind/name .path". An object with no
// baseline (imported, or written by a provider version that kept none) is compared with nothing until the next
// apply records one.
func Of(ty *drift.Types, baselines map[string]drift.Baseline, objs []Object) ([]string, error) {
	var out []string
	for _, o := range objs {
		b, ok := baselines[o.Key]
		if !ok {
			continue
		}
		m, err := Unstructured(o)
		if err != nil {
			return nil, err
		}
		d, err := KeyedDiff(ty, o.Key, b, m)
		if err != nil {
			return nil, err
		}
		out = append(out, d...)
	}
	sort.Strings(out)
	return out, nil
}

// KeyedDiff is ty.Diff of one object, each path after the object's key.
func KeyedDiff(ty *drift.Types, key string, b drift.Baseline, live map[string]any) ([]string, error) {
	paths, err := ty.Diff(b, live)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = key + " " + p
	}
	return out, nil
}

func Read(ctx context.Context, p tfvalue.PrivateGetter, diags *diag.Diagnostics) map[string]drift.Baseline {
	var out map[string]drift.Baseline
	tfvalue.ReadPrivate(ctx, p, PrivateKey, &out, diags)
	return out
}

func Record(ctx context.Context, p tfvalue.PrivateState, b map[string]drift.Baseline, diags *diag.Diagnostics) {
	tfvalue.WritePrivate(ctx, p, PrivateKey, b, diags)
}

// Attribute is the `drift` attribute every resource that writes Kubernetes objects has; repair says what the
// plan does about it.
func Attribute(what, repair string) schema.ListAttribute {
	return schema.ListAttribute{
		Computed:    true,
		ElementType: types.StringType,
		MarkdownDescription: "Every field of " + what + " that the last apply set and that differs on the live object now, as `Kind/name .path` " +
			"(the path in structured-merge-diff's notation, e.g. `ClusterQueue/cluster-queue .spec.stopPolicy`): changed, removed, or, in a list or map " +
			"the API replaces whole (tolerations, node selectors), added to, by kubectl, Helm or any other writer. " +
			"Lists keyed by name (containers, flavors, resources) are compared item by item, so another writer's extra item is not drift. " +
			"What Kueue and KubeRay add on purpose is not drift (the admitted flavor's node labels and tolerations, its admission checks' pod-set updates, the suspend Kueue lifts). " +
			"A non-empty list " + repair + "; it is empty after each apply.",
	}
}

// AppliedValue is drift after an apply: empty, but still null where the plan kept a state's null (see
// PlanRepair).
func AppliedValue(planned types.List) types.List {
	if planned.IsNull() {
		return planned
	}
	return List(nil)
}

// List is the attribute value of the drifted paths.
func List(paths []string) types.List {
	vals := make([]attr.Value, len(paths))
	for i, p := range paths {
		vals[i] = types.StringValue(p)
	}
	return types.ListValueMust(types.StringType, vals)
}

// PlanRepair plans `drift` empty: a refresh that found drift then plans the apply that writes it back. It
// reports whether the state had any. A state from before drift was kept (null) is left as it is, so that a plan
// without refresh does not show every such object changing; its next refresh sets it.
func PlanRepair(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) bool {
	var was types.List
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("drift"), &was)...)
		if was.IsNull() {
			return false
		}
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("drift"), List(nil))...)
	return len(was.Elements()) > 0
}

// Same says whether two drift lists name the same paths.
func Same(a []string, b types.List) bool {
	var have []string
	for _, e := range b.Elements() {
		if s, ok := e.(types.String); ok {
			have = append(have, s.ValueString())
		}
	}
	return slices.Equal(a, have)
}

// RecordApplied keeps what an apply left on objs (as the server answered it, or read back after it), for Read to
// compare the live objects with. Without it, drift is not compared until the next apply: a warning, since the apply
// itself did what it was asked.
func RecordApplied(ctx context.Context, c *kube.Clients, what string, objs []Object, p tfvalue.PrivateState, diags *diag.Diagnostics) {
	Record(ctx, p, AppliedBaselines(c, what, objs, ByManager, diags), diags)
}

// AppliedBaselines are the baselines of objects just written on c; none, with a warning, when they cannot be read.
func AppliedBaselines(c *kube.Clients, what string, objs []Object, record Recorder, diags *diag.Diagnostics) map[string]drift.Baseline {
	if len(objs) == 0 {
		return map[string]drift.Baseline{}
	}
	ty, err := c.Types(KindsOf(objs)...)
	b := map[string]drift.Baseline{}
	if err == nil {
		b, err = Take(ty, objs, record)
	}
	if err != nil {
		diags.AddWarning("Drift not recorded", fmt.Sprintf("%s was applied, but what the apply left could not be read back, so "+
			"changes made beside Terraform are not compared until the next apply: %v", what, err))
		return map[string]drift.Baseline{}
	}
	return b
}

// Applied compares the live objects with what the last apply left on them.
func Applied(c *kube.Clients, b map[string]drift.Baseline, objs []Object) ([]string, error) {
	if len(b) == 0 || len(objs) == 0 {
		return nil, nil
	}
	ty, err := c.Types(KindsOf(objs)...)
	if err != nil {
		return nil, err
	}
	return Of(ty, b, objs)
}

// KindsOf are the kinds of objs, each once, in order.
func KindsOf(objs []Object) []k8sschema.GroupVersionKind {
	var out []k8sschema.GroupVersionKind
	for _, o := range objs {
		if !slices.Contains(out, o.GVK) {
			out = append(out, o.GVK)
		}
	}
	return out
}
