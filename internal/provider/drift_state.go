package provider

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

// privateBaselines keeps, per object ("Kind/name", or "Kind/namespace/name"), what the provider's last write left on
// it (drift.Baseline): Read compares the live object with it.
const privateBaselines = "baselines"

// liveObject is one object the resource wrote, as read now, with the key its baseline is kept under.
type liveObject struct {
	key string
	gvk k8sschema.GroupVersionKind
	obj runtime.Object
}

// unstructuredOf gives the object as the API server's JSON, with the apiVersion and kind typed clients leave out.
func unstructuredOf(o liveObject) (map[string]any, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o.obj)
	if err != nil {
		return nil, err
	}
	m["apiVersion"], m["kind"] = o.gvk.GroupVersion().String(), o.gvk.Kind
	return m, nil
}

// recorder makes one object's baseline from the live object the write left; drift.ErrNotManaged leaves it out.
type recorder func(ty *drift.Types, key string, live map[string]any) (drift.Baseline, error)

// byManager records the fields that are the provider's field manager's (a server-side apply) and their values.
func byManager(ty *drift.Types, _ string, live map[string]any) (drift.Baseline, error) {
	return ty.Record(live, kube.FieldManager)
}

// byWritten records objects written by a plain update, which makes the writer the owner of only the fields it
// changed: the fields are those of what was written (by key), the values the live object's.
func byWritten(written map[string]liveObject) recorder {
	return func(ty *drift.Types, key string, live map[string]any) (drift.Baseline, error) {
		w, ok := written[key]
		if !ok {
			return drift.Baseline{}, errors.New("not among the objects written")
		}
		want, err := unstructuredOf(w)
		if err != nil {
			return drift.Baseline{}, err
		}
		return ty.RecordWritten(live, want)
	}
}

// takeBaselines records what the last write left on each object, as the server answered.
func takeBaselines(ty *drift.Types, objs []liveObject, record recorder) (map[string]drift.Baseline, error) {
	out := map[string]drift.Baseline{}
	for _, o := range objs {
		m, err := unstructuredOf(o)
		if err != nil {
			return nil, err
		}
		b, err := record(ty, o.key, m)
		if errors.Is(err, drift.ErrNotManaged) {
			continue // kept as another writer made it: the resource does not own a field of it
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.key, err)
		}
		out[o.key] = b
	}
	return out, nil
}

// driftOf names what differs between each live object and its baseline, as "Kind/name .path". An object with no
// baseline (imported, or written by a provider version that kept none) is compared with nothing until the next
// apply records one.
func driftOf(ty *drift.Types, baselines map[string]drift.Baseline, objs []liveObject) ([]string, error) {
	var out []string
	for _, o := range objs {
		b, ok := baselines[o.key]
		if !ok {
			continue
		}
		m, err := unstructuredOf(o)
		if err != nil {
			return nil, err
		}
		d, err := keyedDiff(ty, o.key, b, m)
		if err != nil {
			return nil, err
		}
		out = append(out, d...)
	}
	sort.Strings(out)
	return out, nil
}

// keyedDiff is ty.Diff of one object, each path after the object's key.
func keyedDiff(ty *drift.Types, key string, b drift.Baseline, live map[string]any) ([]string, error) {
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

func readBaselines(ctx context.Context, p tfvalue.PrivateGetter, diags *diag.Diagnostics) map[string]drift.Baseline {
	var out map[string]drift.Baseline
	tfvalue.ReadPrivate(ctx, p, privateBaselines, &out, diags)
	return out
}

func recordBaselines(ctx context.Context, p tfvalue.PrivateState, b map[string]drift.Baseline, diags *diag.Diagnostics) {
	tfvalue.WritePrivate(ctx, p, privateBaselines, b, diags)
}

// driftAttribute is the `drift` attribute every resource that writes Kubernetes objects has; repair says what the
// plan does about it.
func driftAttribute(what, repair string) schema.ListAttribute {
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

// appliedDriftValue is drift after an apply: empty, but still null where the plan kept a state's null (see
// planDriftRepair).
func appliedDriftValue(planned types.List) types.List {
	if planned.IsNull() {
		return planned
	}
	return driftList(nil)
}

// driftList is the attribute value of the drifted paths.
func driftList(paths []string) types.List {
	vals := make([]attr.Value, len(paths))
	for i, p := range paths {
		vals[i] = types.StringValue(p)
	}
	return types.ListValueMust(types.StringType, vals)
}

// planDriftRepair plans `drift` empty: a refresh that found drift then plans the apply that writes it back. It
// reports whether the state had any. A state from before drift was kept (null) is left as it is, so that a plan
// without refresh does not show every such object changing; its next refresh sets it.
func planDriftRepair(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) bool {
	var was types.List
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("drift"), &was)...)
		if was.IsNull() {
			return false
		}
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("drift"), driftList(nil))...)
	return len(was.Elements()) > 0
}

// sameDrift says whether two drift lists name the same paths.
func sameDrift(a []string, b types.List) bool {
	var have []string
	for _, e := range b.Elements() {
		if s, ok := e.(types.String); ok {
			have = append(have, s.ValueString())
		}
	}
	return slices.Equal(a, have)
}

// recordApplied keeps what an apply left on objs (as the server answered it, or read back after it), for Read to
// compare the live objects with. Without it, drift is not compared until the next apply: a warning, since the apply
// itself did what it was asked.
func recordApplied(ctx context.Context, c *kube.Clients, what string, objs []liveObject, p tfvalue.PrivateState, diags *diag.Diagnostics) {
	recordBaselines(ctx, p, appliedBaselines(c, what, objs, byManager, diags), diags)
}

// appliedBaselines are the baselines of objects just written on c; none, with a warning, when they cannot be read.
func appliedBaselines(c *kube.Clients, what string, objs []liveObject, record recorder, diags *diag.Diagnostics) map[string]drift.Baseline {
	if len(objs) == 0 {
		return map[string]drift.Baseline{}
	}
	ty, err := c.Types(kindsOf(objs)...)
	b := map[string]drift.Baseline{}
	if err == nil {
		b, err = takeBaselines(ty, objs, record)
	}
	if err != nil {
		diags.AddWarning("Drift not recorded", fmt.Sprintf("%s was applied, but what the apply left could not be read back, so "+
			"changes made beside Terraform are not compared until the next apply: %v", what, err))
		return map[string]drift.Baseline{}
	}
	return b
}

// appliedDrift compares the live objects with what the last apply left on them.
func appliedDrift(c *kube.Clients, b map[string]drift.Baseline, objs []liveObject) ([]string, error) {
	if len(b) == 0 || len(objs) == 0 {
		return nil, nil
	}
	ty, err := c.Types(kindsOf(objs)...)
	if err != nil {
		return nil, err
	}
	return driftOf(ty, b, objs)
}

// kindsOf are the kinds of objs, each once, in order.
func kindsOf(objs []liveObject) []k8sschema.GroupVersionKind {
	var out []k8sschema.GroupVersionKind
	for _, o := range objs {
		if !slices.Contains(out, o.gvk) {
			out = append(out, o.gvk)
		}
	}
	return out
}
