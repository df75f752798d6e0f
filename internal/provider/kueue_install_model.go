//go:build !nohelm

package provider

import (
	"fmt"
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

// flattenRelease reads what the release says back: the feature gates its values carry (a `helm upgrade --set` by
// hand shows as drift), the chart version and the status.
func flattenRelease(m *kueueInstallModel, rel *release.Release) {
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
