//go:build !nohelm

package kueueinstall

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"helm.sh/helm/v3/pkg/release"
	"sigs.k8s.io/yaml"
)

type kueueInstallModel struct {
	ID           types.String   `tfsdk:"id"`
	Cluster      types.String   `tfsdk:"cluster"`
	Project      types.String   `tfsdk:"project"`
	Location     types.String   `tfsdk:"location"`
	ReleaseName  types.String   `tfsdk:"release_name"`
	Namespace    types.String   `tfsdk:"namespace"`
	Chart        types.String   `tfsdk:"chart"`
	ChartVersion types.String   `tfsdk:"chart_version"`
	FeatureGates types.Map      `tfsdk:"feature_gates"`
	Values       types.String   `tfsdk:"values"`
	Wait         types.Bool     `tfsdk:"wait"`
	Status       types.String   `tfsdk:"status"`
	Revision     types.Int64    `tfsdk:"revision"`
	AppVersion   types.String   `tfsdk:"app_version"`
	Drift        types.List     `tfsdk:"drift"`
	Timeouts     timeouts.Value `tfsdk:"timeouts"`
}

// releaseValues are the chart values: the extra YAML, with the feature gates as the tutorial's --set makes them.
func releaseValues(m *kueueInstallModel) (map[string]any, error) {
	values := map[string]any{}
	if s := m.Values.ValueString(); s != "" {
		if err := yaml.Unmarshal([]byte(s), &values); err != nil {
			return nil, fmt.Errorf("values is not YAML: %w", err)
		}
	}
	cm, _ := values["controllerManager"].(map[string]any)
	if cm == nil {
		cm = map[string]any{}
	}
	var gates []any
	names := make([]string, 0, len(m.FeatureGates.Elements()))
	for n := range m.FeatureGates.Elements() {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v, _ := m.FeatureGates.Elements()[n].(types.Bool)
		gates = append(gates, map[string]any{"name": n, "enabled": v.ValueBool()})
	}
	cm["featureGates"] = gates
	values["controllerManager"] = cm
	return values, nil
}

// flattenRelease reads what the release says back: the feature gates and other values it carries (a `helm upgrade
// --set` by hand shows as drift), the chart version and the status.
func flattenRelease(m *kueueInstallModel, rel *release.Release) {
	m.Values = readValues(m.Values, rel.Config)
	m.Status = types.StringValue(rel.Info.Status.String())
	m.Revision = types.Int64Value(int64(rel.Version))
	if rel.Chart != nil && rel.Chart.Metadata != nil {
		m.AppVersion = types.StringValue(rel.Chart.Metadata.AppVersion)
		m.ChartVersion = types.StringValue(rel.Chart.Metadata.Version)
	}
	gates := map[string]attr.Value{}
	if cm, ok := rel.Config["controllerManager"].(map[string]any); ok {
		if list, ok := cm["featureGates"].([]any); ok {
			for _, g := range list {
				if e, ok := g.(map[string]any); ok {
					name, _ := e["name"].(string)
					enabled, _ := e["enabled"].(bool)
					gates[name] = types.BoolValue(enabled)
				}
			}
		}
	}
	m.FeatureGates = types.MapValueMust(types.BoolType, gates)
}

// readValues is the values attribute as the release holds it: the prior spelling while the release's values, but
// for the feature gates (feature_gates holds those), are what it says; null when the release has none; else the
// release's, as YAML.
func readValues(prior types.String, config map[string]any) types.String {
	live := withoutGates(config)
	var mine map[string]any
	if s := prior.ValueString(); s != "" {
		if err := yaml.Unmarshal([]byte(s), &mine); err != nil {
			return prior // ModifyPlan reports it
		}
	}
	if sameValues(withoutGates(mine), live) {
		return prior
	}
	if len(live) == 0 {
		return types.StringNull()
	}
	b, err := yaml.Marshal(live)
	if err != nil {
		return prior
	}
	return types.StringValue(string(b))
}

// withoutGates is a copy of values without controllerManager.featureGates, and without controllerManager if that
// was all it held.
func withoutGates(values map[string]any) map[string]any {
	out := make(map[string]any, len(values))
	for k, v := range values {
		out[k] = v
	}
	if cm, ok := out["controllerManager"].(map[string]any); ok {
		rest := make(map[string]any, len(cm))
		for k, v := range cm {
			if k != "featureGates" {
				rest[k] = v
			}
		}
		out["controllerManager"] = rest
		if len(rest) == 0 {
			delete(out, "controllerManager")
		}
	}
	return out
}

// sameValues compares two values trees as Helm stores them (JSON), so that 2 and 2.0 or a nil and an empty map agree.
func sameValues(a, b map[string]any) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return false
	}
	var na, nb any
	if json.Unmarshal(ja, &na) != nil || json.Unmarshal(jb, &nb) != nil {
		return false
	}
	return reflect.DeepEqual(na, nb)
}
