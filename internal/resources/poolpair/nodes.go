package poolpair

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkedrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// Who the nodes of both pools are: the team's own settings beside the ones the tutorial's commands set. Both pools
// carry them alike, as a platform team's google_container_node_pool pairs do.

// taintAttrTypes are one item of `taints`, in GKE's API names (NodeTaint).
var taintAttrTypes = map[string]attr.Type{"key": types.StringType, "value": types.StringType, "effect": types.StringType}

var taintType = types.ObjectType{AttrTypes: taintAttrTypes}

// serviceAccountScopes are the scopes gcloud sends for a node service account other than the default one when no
// --scopes are given (gcloud 528, captured on loopback: cloud-platform and userinfo.email).
var serviceAccountScopes = []string{"https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/userinfo.email"}

// defaultScopes are the scopes gcloud sends when none are asked for, which depend on the service account.
func defaultScopes(serviceAccount string) []string {
	if serviceAccount != "" {
		return slices.Clone(serviceAccountScopes)
	}
	return gke.GcloudDefaultScopes()
}

// expandNodeSettings sets on a pool's config what the pair's node settings ask for, as gcloud's --service-account,
// --scopes, --labels, --tags, --node-labels, --node-taints, --disk-type, --disk-size and --enable-gvnic do; the ComputeClass's label and taint are added after.
func expandNodeSettings(pm *poolPairModel, cfg *containerpb.NodeConfig) {
	cfg.ServiceAccount = pm.ServiceAccount.ValueString()
	cfg.OauthScopes = defaultScopes(cfg.ServiceAccount)
	if !pm.OauthScopes.IsNull() && !pm.OauthScopes.IsUnknown() {
		cfg.OauthScopes = slices.Sorted(slices.Values(stringElems(pm.OauthScopes.Elements())))
	}
	cfg.ResourceLabels = stringMap(pm.ResourceLabels)
	cfg.Tags = stringElems(pm.NetworkTags.Elements())
	cfg.Labels = stringMap(pm.Labels)
	// GKE's defaults are left out, as gcloud leaves out flags not given.
	if t := pm.DiskType.ValueString(); t != catalog.DefaultDiskType(cfg.MachineType) {
		cfg.DiskType = t
	}
	if n := pm.DiskSizeGB.ValueInt64(); n != catalog.DefaultDiskSizeGB {
		cfg.DiskSizeGb = int32(n) //nolint:gosec // validated to at least 10; GKE's sizes fit
	}
	expandBootDisks(pm.SecondaryBootDisks, cfg)
	if pm.Gvnic.ValueBool() {
		cfg.Gvnic = &containerpb.VirtualNIC{Enabled: true}
	}
	for _, e := range pm.Taints.Elements() {
		o, ok := e.(types.Object)
		if !ok || o.IsNull() || o.IsUnknown() {
			continue
		}
		a := o.Attributes()
		str := func(k string) string { s, _ := a[k].(types.String); return s.ValueString() }
		cfg.Taints = append(cfg.Taints, &containerpb.NodeTaint{Key: str("key"), Value: str("value"),
			Effect: containerpb.NodeTaint_Effect(containerpb.NodeTaint_Effect_value[str("effect")])})
	}
}

// flattenNodeSettings reads the node settings from one live pool into st where the pool differs from was (st as it
// was before either pool was read), so that a pool changed by hand shows whichever of the two it is. What GKE adds
// (its own resource labels) and what compute_class reads (the class's label and taint) are left out; an empty
// setting equals an unset one.
func flattenNodeSettings(was, st *poolPairModel, np *containerpb.NodePool, identity bool) {
	cfg := np.GetConfig()
	if identity {
		readIdentity(was, st, cfg)
	}
	if live := mapOrNull(gkedrift.WithoutGKELabels(np)); differs(was.ResourceLabels, live) {
		st.ResourceLabels = live
	}
	if live := listOrNull(types.StringType, stringValues(cfg.GetTags())); differs(was.NetworkTags, live) {
		st.NetworkTags = live
	}
	labels := maps.Clone(cfg.GetLabels())
	delete(labels, wellknown.ComputeClassLabel)
	delete(labels, wellknown.SliceGroupLabel) // the pair's own, compared through drift
	if live := mapOrNull(labels); differs(was.Labels, live) {
		st.Labels = live
	}
	readDisk(was, st, cfg)
	readZones(was, st, np)
	if live := bootDisksOf(cfg); differs(was.SecondaryBootDisks, live) {
		st.SecondaryBootDisks = live
	}
	var taints []attr.Value
	for _, t := range cfg.GetTaints() {
		if t.GetKey() != wellknown.ComputeClassLabel {
			taints = append(taints, types.ObjectValueMust(taintAttrTypes, map[string]attr.Value{
				"key": types.StringValue(t.GetKey()), "value": types.StringValue(t.GetValue()), "effect": types.StringValue(t.GetEffect().String())}))
		}
	}
	if live := listOrNull(taintType, taints); differs(was.Taints, live) {
		st.Taints = live
	}
}

// readDisk reads the boot disk and gVNIC where the pool differs from was, or, where was has none (an import, a state
// from before these attributes), from GKE's default, so that of two pools the one that differs shows. A disk type
// left unset on a family whose default is not on record stays unset.
func readDisk(was, st *poolPairModel, cfg *containerpb.NodeConfig) {
	liveType, liveSize := types.StringNull(), types.Int64Null()
	if t := cfg.GetDiskType(); t != "" {
		liveType = types.StringValue(t)
	}
	if n := cfg.GetDiskSizeGb(); n != 0 {
		liveSize = types.Int64Value(int64(n))
	}
	readDefaulted(&st.DiskType, was.DiskType, orNull(catalog.DefaultDiskType(cfg.GetMachineType())), liveType)
	readDefaulted(&st.DiskSizeGB, was.DiskSizeGB, types.Int64Value(catalog.DefaultDiskSizeGB), liveSize)
	readDefaulted(&st.Gvnic, was.Gvnic, types.BoolValue(false), types.BoolValue(cfg.GetGvnic().GetEnabled()))
}

// readDefaulted reads into st a setting that GKE defaults: compared with was, or with GKE's default def where was is
// null or unknown (then st holds def unless set). A null def (not on record) or a null live value (GKE said nothing)
// compares nothing.
func readDefaulted[T attr.Value](st *T, was, def, live T) {
	want := was
	if was.IsNull() || was.IsUnknown() {
		want = def
		*st = cmpOr(*st, want)
	}
	if !want.IsNull() && !live.IsNull() && !live.Equal(want) {
		*st = live
	}
}

// cmpOr is v, or def where v is null or unknown.
func cmpOr[T interface {
	IsNull() bool
	IsUnknown() bool
}](v, def T) T {
	if v.IsNull() || v.IsUnknown() {
		return def
	}
	return v
}

// planDiskType plans GKE's default boot disk for the machine type where the configuration names none, so that a
// disk changed by hand plans back to it; unknown while the machine type is. Where that default is not on record the
// disk is GKE's to choose and not compared: a disk the configuration stops naming stays as it is (a plan to null
// would promise a change the apply cannot make), unless the pools' disks differ (then neither is moved).
func planDiskType(ctx context.Context, config tfsdk.Config, plan, prior *poolPairModel, diags *diag.Diagnostics) {
	var configured types.String
	diags.Append(config.GetAttribute(ctx, path.Root("disk_type"), &configured)...)
	switch def := catalog.DefaultDiskType(plan.MachineType.ValueString()); {
	case !configured.IsNull():
		return
	case !tfvalue.Known(plan.MachineType):
		plan.DiskType = types.StringUnknown()
	case def == "" && prior != nil && prior.MachineType.Equal(plan.MachineType) && !driftIn(prior, "config.diskType"):
		plan.DiskType = prior.DiskType
	default:
		plan.DiskType = orNull(def)
	}
}

// validateNodeSettings checks what the configuration alone shows of the node settings: a boot disk the machine type
// cannot boot from, and a resource label of GKE's own.
func validateNodeSettings(m *poolPairModel, diags *diag.Diagnostics) {
	if tfvalue.Known(m.MachineType) && tfvalue.Known(m.DiskType) && !catalog.TakesDisk(m.MachineType.ValueString(), m.DiskType.ValueString()) {
		diags.AddAttributeError(path.Root("disk_type"), "A boot disk the machine type cannot use",
			fmt.Sprintf("disk_type is %s, but %s nodes boot only from %s (Cloud TPU and Compute Engine docs on supported disk types). Set disk_type to that, or leave it out for GKE's default.",
				m.DiskType.ValueString(), m.MachineType.ValueString(), strings.Join(catalog.BootDisks(m.MachineType.ValueString()), " or ")))
	}
	for k := range stringMap(m.ResourceLabels) {
		if strings.HasPrefix(k, "goog-gke-") {
			diags.AddAttributeError(path.Root("resource_labels"), "A resource label GKE keeps for itself",
				fmt.Sprintf("resource_labels has key %q: keys starting with goog-gke- are GKE's reserved labels (it adds %s, %s and %s), and GKE sets them itself and reconciles any change to them (GKE docs, creating-managing-labels), so a value set here would not stay.",
					k, wellknown.ProvisioningModelLabel, wellknown.AcceleratorTypeLabel, wellknown.TPUPoolTypeLabel))
		}
	}
}

// readIdentity reads the service account and scopes, which GKE sets only on a new pool.
func readIdentity(was, st *poolPairModel, cfg *containerpb.NodeConfig) {
	sa := serviceAccountOf(cfg)
	if live := orNull(sa); !live.Equal(was.ServiceAccount) {
		st.ServiceAccount = live
	}
	scopes := sortedScopes(cfg)
	if !slices.Equal(scopes, effectiveScopes(was.OauthScopes, sa)) {
		st.OauthScopes = types.SetValueMust(types.StringType, stringValues(scopes))
	}
}

// serviceAccountOf is the nodes' service account, "" for the Compute Engine default however GKE spells it.
func serviceAccountOf(cfg *containerpb.NodeConfig) string {
	if sa := cfg.GetServiceAccount(); sa != "default" {
		return sa
	}
	return ""
}

func sortedScopes(cfg *containerpb.NodeConfig) []string {
	return slices.Sorted(slices.Values(cfg.GetOauthScopes()))
}

// scopesChange says whether the pools' scopes change from state to plan: unset means gcloud's default scopes for the
// service account, so an import of a pool with the default scopes and a configuration that spells them out (or the
// other way round) replace nothing.
func scopesChange(ctx context.Context, req planmodifier.SetRequest, resp *setplanmodifier.RequiresReplaceIfFuncResponse) {
	var sa types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("service_account"), &sa)...)
	if sa.IsUnknown() || req.PlanValue.IsUnknown() || req.StateValue.IsUnknown() {
		resp.RequiresReplace = true
		return
	}
	resp.RequiresReplace = !slices.Equal(effectiveScopes(req.StateValue, sa.ValueString()), effectiveScopes(req.PlanValue, sa.ValueString()))
}

// effectiveScopes are the scopes a pool gets for an oauth_scopes value, sorted.
func effectiveScopes(v types.Set, serviceAccount string) []string {
	if v.IsNull() {
		return slices.Sorted(slices.Values(defaultScopes(serviceAccount)))
	}
	return slices.Sorted(slices.Values(stringElems(v.Elements())))
}

// copyNodeSettings sets the node settings of m to from's.
func copyNodeSettings(m, from *poolPairModel) {
	m.ServiceAccount, m.OauthScopes, m.ResourceLabels = from.ServiceAccount, from.OauthScopes, from.ResourceLabels
	m.NetworkTags, m.Labels, m.Taints = from.NetworkTags, from.Labels, from.Taints
	m.DiskType, m.DiskSizeGB, m.Gvnic = from.DiskType, from.DiskSizeGB, from.Gvnic
	m.NodeLocations, m.SecondaryBootDisks = from.NodeLocations, from.SecondaryBootDisks
}

// differs says whether a live map or list says something other than was: null and empty say the same.
func differs(was, live attr.Value) bool {
	return (size(was) > 0 || size(live) > 0) && !was.Equal(live)
}

func size(v attr.Value) int {
	switch c := v.(type) {
	case types.Map:
		return len(c.Elements())
	case types.List:
		return len(c.Elements())
	}
	return 0
}

// mapOrNull and listOrNull are a live map or list as an attribute holds it, null when empty.
func mapOrNull(m map[string]string) types.Map {
	if len(m) == 0 {
		return types.MapNull(types.StringType)
	}
	return types.MapValueMust(types.StringType, mapValues(m))
}

func listOrNull(elem attr.Type, items []attr.Value) types.List {
	if len(items) == 0 {
		return types.ListNull(elem)
	}
	return types.ListValueMust(elem, items)
}

func orNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func stringElems(vals []attr.Value) []string {
	var out []string
	for _, v := range vals {
		if s, ok := v.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			out = append(out, s.ValueString())
		}
	}
	return out
}

func stringValues(ss []string) []attr.Value {
	out := make([]attr.Value, len(ss))
	for i, s := range ss {
		out[i] = types.StringValue(s)
	}
	return out
}

func stringMap(m types.Map) map[string]string {
	if m.IsNull() || m.IsUnknown() {
		return nil
	}
	out := map[string]string{}
	for k, v := range m.Elements() {
		if s, ok := v.(types.String); ok {
			out[k] = s.ValueString()
		}
	}
	return out
}

func mapValues(m map[string]string) map[string]attr.Value {
	out := map[string]attr.Value{}
	for k, v := range m {
		out[k] = types.StringValue(v)
	}
	return out
}
