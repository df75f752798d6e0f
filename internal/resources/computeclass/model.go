package computeclass

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeclass"
)

type computeClassModel struct {
	ID                   types.String         `tfsdk:"id"`
	Cluster              types.String         `tfsdk:"cluster"`
	Project              types.String         `tfsdk:"project"`
	Location             types.String         `tfsdk:"location"`
	Name                 types.String         `tfsdk:"name"`
	Description          types.String         `tfsdk:"description"`
	Priorities           []classPriorityModel `tfsdk:"priorities"`
	WhenUnsatisfiable    types.String         `tfsdk:"when_unsatisfiable"`
	NodePoolAutoCreation types.Bool           `tfsdk:"node_pool_auto_creation"`
	OptimizeRulePriority types.Bool           `tfsdk:"optimize_rule_priority"`
	Health               types.String         `tfsdk:"health"`
	Drift                types.List           `tfsdk:"drift"`
	Timeouts             timeouts.Value       `tfsdk:"timeouts"`
}

type classPriorityModel struct {
	Nodepools                    types.List   `tfsdk:"nodepools"`
	MachineFamily                types.String `tfsdk:"machine_family"`
	MachineType                  types.String `tfsdk:"machine_type"`
	MinCores                     types.Int64  `tfsdk:"min_cores"`
	MinMemoryGb                  types.Int64  `tfsdk:"min_memory_gb"`
	Spot                         types.Bool   `tfsdk:"spot"`
	FlexStart                    types.Bool   `tfsdk:"flex_start"`
	TPU                          types.Object `tfsdk:"tpu"`
	GPU                          types.Object `tfsdk:"gpu"`
	ReservationAffinity          types.String `tfsdk:"reservation_affinity"`
	MaxRunDurationSeconds        types.Int64  `tfsdk:"max_run_duration_seconds"`
	CapacityCheckWaitTimeSeconds types.Int64  `tfsdk:"capacity_check_wait_time_seconds"`
}

// classTPU and classGPU are the tpu and gpu blocks of a priority.
type classTPU struct {
	Type     string
	Count    int64
	Topology string
}

type classGPU struct {
	Type, DriverVersion string
	Count               int64
}

func (p classPriorityModel) tpu() (classTPU, bool) {
	if p.TPU.IsNull() || p.TPU.IsUnknown() {
		return classTPU{}, false
	}
	a := p.TPU.Attributes()
	return classTPU{Type: attrString(a["type"]), Count: attrInt(a["count"]), Topology: attrString(a["topology"])}, true
}

func (p classPriorityModel) gpu() (classGPU, bool) {
	if p.GPU.IsNull() || p.GPU.IsUnknown() {
		return classGPU{}, false
	}
	a := p.GPU.Attributes()
	return classGPU{Type: attrString(a["type"]), Count: attrInt(a["count"]), DriverVersion: attrString(a["driver_version"])}, true
}

func attrString(v attr.Value) string {
	s, _ := v.(types.String)
	return s.ValueString()
}

func attrInt(v attr.Value) int64 {
	n, _ := v.(types.Int64)
	return n.ValueInt64()
}

// expandComputeClass is the ComputeClass the model describes, every field the provider manages spelled out (GKE's
// defaults included): create and update write this spec whole, so a change by hand shows and is undone.
func expandComputeClass(ctx context.Context, m *computeClassModel) *unstructured.Unstructured {
	prios := make([]any, 0, len(m.Priorities))
	for _, p := range m.Priorities {
		prios = append(prios, expandPriority(ctx, p))
	}
	spec := map[string]any{
		"priorities":           prios,
		"whenUnsatisfiable":    m.WhenUnsatisfiable.ValueString(),
		"nodePoolAutoCreation": map[string]any{"enabled": m.NodePoolAutoCreation.ValueBool()},
		"activeMigration":      map[string]any{"optimizeRulePriority": m.OptimizeRulePriority.ValueBool()},
	}
	if !m.Description.IsNull() {
		spec["description"] = m.Description.ValueString()
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cloud.google.com/v1",
		"kind":       "ComputeClass",
		"metadata":   map[string]any{"name": m.Name.ValueString()},
		"spec":       spec,
	}}
}

func expandPriority(ctx context.Context, p classPriorityModel) map[string]any {
	out := map[string]any{}
	if !p.Nodepools.IsNull() {
		var pools []string
		p.Nodepools.ElementsAs(ctx, &pools, false)
		list := make([]any, len(pools))
		for i, n := range pools {
			list[i] = n
		}
		out["nodepools"] = list
	}
	str := func(key string, v types.String) {
		if !v.IsNull() {
			out[key] = v.ValueString()
		}
	}
	num := func(key string, v types.Int64) {
		if !v.IsNull() {
			out[key] = v.ValueInt64()
		}
	}
	str("machineFamily", p.MachineFamily)
	str("machineType", p.MachineType)
	num("minCores", p.MinCores)
	num("minMemoryGb", p.MinMemoryGb)
	num("maxRunDurationSeconds", p.MaxRunDurationSeconds)
	num("capacityCheckWaitTimeSeconds", p.CapacityCheckWaitTimeSeconds)
	if !p.Spot.IsNull() {
		out["spot"] = p.Spot.ValueBool()
	}
	if !p.FlexStart.IsNull() {
		out["flexStart"] = map[string]any{"enabled": p.FlexStart.ValueBool()}
	}
	if t, ok := p.tpu(); ok {
		out["tpu"] = map[string]any{"type": t.Type, "count": t.Count, "topology": t.Topology}
	}
	if g, ok := p.gpu(); ok {
		out["gpu"] = map[string]any{"type": g.Type, "count": g.Count, "driverVersion": g.DriverVersion}
	}
	if !p.ReservationAffinity.IsNull() {
		out["reservations"] = map[string]any{"affinity": p.ReservationAffinity.ValueString()}
	}
	return out
}

// flattenComputeClass sets the model from the live class: what the provider manages, and the Health GKE reports.
func flattenComputeClass(m *computeClassModel, u *unstructured.Unstructured) {
	spec, _, _ := unstructured.NestedMap(u.Object, "spec")
	m.Name = types.StringValue(u.GetName())
	m.Description = types.StringNull()
	if v, ok := spec["description"].(string); ok {
		m.Description = types.StringValue(v)
	}
	m.WhenUnsatisfiable = types.StringValue(stringOr(spec["whenUnsatisfiable"], "DoNotScaleUp"))
	auto, _, _ := unstructured.NestedBool(spec, "nodePoolAutoCreation", "enabled")
	opt, _, _ := unstructured.NestedBool(spec, "activeMigration", "optimizeRulePriority")
	m.NodePoolAutoCreation, m.OptimizeRulePriority = types.BoolValue(auto), types.BoolValue(opt)
	items, _, _ := unstructured.NestedSlice(spec, "priorities")
	m.Priorities = make([]classPriorityModel, 0, len(items))
	for _, it := range items {
		pm, _ := it.(map[string]any)
		m.Priorities = append(m.Priorities, flattenPriority(pm))
	}
	m.Health = types.StringValue(gkeclass.Health(u))
}

func flattenPriority(pm map[string]any) classPriorityModel {
	str := func(f ...string) types.String {
		if v, ok, _ := unstructured.NestedString(pm, f...); ok {
			return types.StringValue(v)
		}
		return types.StringNull()
	}
	num := func(f ...string) types.Int64 {
		if v, ok, _ := unstructured.NestedFieldNoCopy(pm, f...); ok {
			if n, ok := toInt64(v); ok {
				return types.Int64Value(n)
			}
		}
		return types.Int64Null()
	}
	p := classPriorityModel{
		Nodepools:                    types.ListNull(types.StringType),
		MachineFamily:                str("machineFamily"),
		MachineType:                  str("machineType"),
		MinCores:                     num("minCores"),
		MinMemoryGb:                  num("minMemoryGb"),
		Spot:                         types.BoolNull(),
		FlexStart:                    types.BoolNull(),
		TPU:                          types.ObjectNull(classTPUTypes),
		GPU:                          types.ObjectNull(classGPUTypes),
		ReservationAffinity:          str("reservations", "affinity"),
		MaxRunDurationSeconds:        num("maxRunDurationSeconds"),
		CapacityCheckWaitTimeSeconds: num("capacityCheckWaitTimeSeconds"),
	}
	if pools, ok, _ := unstructured.NestedStringSlice(pm, "nodepools"); ok {
		vals := make([]attr.Value, len(pools))
		for i, n := range pools {
			vals[i] = types.StringValue(n)
		}
		p.Nodepools = types.ListValueMust(types.StringType, vals)
	}
	if v, ok := pm["spot"].(bool); ok {
		p.Spot = types.BoolValue(v)
	}
	if v, ok, _ := unstructured.NestedBool(pm, "flexStart", "enabled"); ok {
		p.FlexStart = types.BoolValue(v)
	}
	if _, ok := pm["tpu"].(map[string]any); ok {
		p.TPU = types.ObjectValueMust(classTPUTypes, map[string]attr.Value{
			"type": orEmpty(str("tpu", "type")), "count": orZero(num("tpu", "count")), "topology": orEmpty(str("tpu", "topology")),
		})
	}
	if _, ok := pm["gpu"].(map[string]any); ok {
		driver := str("gpu", "driverVersion")
		if driver.IsNull() {
			driver = types.StringValue("default")
		}
		p.GPU = types.ObjectValueMust(classGPUTypes, map[string]attr.Value{
			"type": orEmpty(str("gpu", "type")), "count": orZero(num("gpu", "count")), "driver_version": driver,
		})
	}
	return p
}

func orEmpty(s types.String) types.String {
	if s.IsNull() {
		return types.StringValue("")
	}
	return s
}

func orZero(n types.Int64) types.Int64 {
	if n.IsNull() {
		return types.Int64Value(0)
	}
	return n
}

func stringOr(v any, def string) string {
	if s, ok := v.(string); ok && s != "" {
		return s
	}
	return def
}

func toInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		return int64(n), true
	}
	return 0, false
}
