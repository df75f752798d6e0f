package provider

import (
	"context"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

func nodepools(names ...string) types.List {
	vals := make([]attr.Value, len(names))
	for i, n := range names {
		vals[i] = types.StringValue(n)
	}
	return types.ListValueMust(types.StringType, vals)
}

func emptyPriority() classPriorityModel {
	return classPriorityModel{
		Nodepools: types.ListNull(types.StringType), MachineFamily: types.StringNull(), MachineType: types.StringNull(),
		MinCores: types.Int64Null(), MinMemoryGb: types.Int64Null(), Spot: types.BoolNull(), FlexStart: types.BoolNull(),
		TPU: types.ObjectNull(classTPUTypes), GPU: types.ObjectNull(classGPUTypes), ReservationAffinity: types.StringNull(),
		MaxRunDurationSeconds: types.Int64Null(), CapacityCheckWaitTimeSeconds: types.Int64Null(),
	}
}

// TestComputeClassReadsWhatItWrites: the class the provider writes, read back, is the configuration again.
func TestComputeClassReadsWhatItWrites(t *testing.T) {
	t.Parallel()
	od, fs, tpu := emptyPriority(), emptyPriority(), emptyPriority()
	od.Nodepools, fs.Nodepools = nodepools("on-demand-pool"), nodepools("flex-start-pool")
	tpu.TPU = types.ObjectValueMust(classTPUTypes, map[string]attr.Value{
		"type": types.StringValue("tpu-v6e-slice"), "count": types.Int64Value(4), "topology": types.StringValue("4x4")})
	tpu.FlexStart, tpu.CapacityCheckWaitTimeSeconds = types.BoolValue(true), types.Int64Value(900)
	m := &computeClassModel{
		Name: types.StringValue("tpu-fallback"), Description: types.StringNull(), Priorities: []classPriorityModel{od, fs, tpu},
		WhenUnsatisfiable: types.StringValue("DoNotScaleUp"), NodePoolAutoCreation: types.BoolValue(false), OptimizeRulePriority: types.BoolValue(false),
	}
	u := expandComputeClass(context.Background(), m)
	// Through JSON, as the API server returns it.
	b, err := yaml.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	back := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(b, &back.Object); err != nil {
		t.Fatal(err)
	}
	got := &computeClassModel{}
	flattenComputeClass(got, back)
	got.Health, got.Drift = types.StringNull(), types.ListNull(types.StringType)
	m.Health, m.Drift = types.StringNull(), types.ListNull(types.StringType)
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("read back (-wrote +read):\n%s", diff)
	}
}

func TestClassPoolProblems(t *testing.T) {
	t.Parallel()
	p := emptyPriority()
	p.Nodepools = nodepools("joined", "unlabelled", "untainted", "fixed-size", "missing")
	m := &computeClassModel{Name: types.StringValue("c"), Priorities: []classPriorityModel{p}}
	auto := &containerpb.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 4}
	labels := map[string]string{wellknown.ComputeClassLabel: "c"}
	pools := map[string]*containerpb.NodePool{
		"joined":     {Name: "joined", Autoscaling: auto, Config: &containerpb.NodeConfig{Labels: labels, Taints: []*containerpb.NodeTaint{classTaint("c")}}},
		"unlabelled": {Name: "unlabelled", Autoscaling: auto, Config: &containerpb.NodeConfig{}},
		"untainted":  {Name: "untainted", Autoscaling: auto, Config: &containerpb.NodeConfig{Labels: labels}},
		"fixed-size": {Name: "fixed-size", Config: &containerpb.NodeConfig{Labels: labels}},
	}
	want := []string{
		`Crd taint is missing for the nodepool untainted. It needs cloud.google.com/compute-class=c:NoSchedule: set compute_class = "c" on its pool pair.`,
		"Node pool unlabelled does not carry the label cloud.google.com/compute-class=c (it has none): set compute_class = \"c\" on its pool pair.",
		"Nodepool fixed-size specified by name has autoscaling disabled or doesn't exist in the cluster.",
		"Nodepool missing specified by name has autoscaling disabled or doesn't exist in the cluster.",
	}
	if diff := cmp.Diff(want, classPoolProblems(context.Background(), m, pools)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestClassSettingsKeepOtherLabels: joining or leaving a class changes only the class's label and taint.
func TestClassSettingsKeepOtherLabels(t *testing.T) {
	t.Parallel()
	other := &containerpb.NodeTaint{Key: "team", Value: "ml", Effect: containerpb.NodeTaint_NO_EXECUTE}
	np := &containerpb.NodePool{Config: &containerpb.NodeConfig{Labels: map[string]string{"team": "ml"}, Taints: []*containerpb.NodeTaint{other}}}
	labels, taints, changed := classSettings(np, "c")
	if !changed || labels["team"] != "ml" || labels[wellknown.ComputeClassLabel] != "c" || len(taints) != 2 {
		t.Errorf("joining: %v %v %v", labels, taints, changed)
	}
	np.Config.Labels, np.Config.Taints = labels, taints
	if _, _, changed := classSettings(np, "c"); changed {
		t.Error("a pool already in the class changes again")
	}
	labels, taints, changed = classSettings(np, "")
	if !changed || len(labels) != 1 || len(taints) != 1 || taints[0] != other {
		t.Errorf("leaving: %v %v %v", labels, taints, changed)
	}
}

func TestValidateComputeClassAcceptsTheCommonCase(t *testing.T) {
	t.Parallel()
	od, fs := emptyPriority(), emptyPriority()
	od.Nodepools, fs.Nodepools = nodepools("on-demand-pool"), nodepools("flex-start-pool")
	var diags diag.Diagnostics
	validateComputeClass(&computeClassModel{Name: types.StringValue("tpu-fallback"), Priorities: []classPriorityModel{od, fs}}, nil, &diags)
	if diags.HasError() {
		t.Errorf("the two-pool class: %v", diags)
	}
}

// TestValidateComputeClassWaitsForUnknowns: a priority with a value not known yet (a module variable) is checked once
// it is known, not refused as empty or inconsistent.
func TestValidateComputeClassWaitsForUnknowns(t *testing.T) {
	t.Parallel()
	prio := tftypes.NewAttributePath().WithAttributeName("priorities").WithElementKeyInt(0)
	pools, tpu, wait := emptyPriority(), emptyPriority(), emptyPriority()
	tpu.TPU = types.ObjectValueMust(classTPUTypes, map[string]attr.Value{
		"type": types.StringValue(""), "count": types.Int64Value(4), "topology": types.StringValue("4x4")})
	wait.CapacityCheckWaitTimeSeconds = types.Int64Value(60)
	for name, tc := range map[string]struct {
		p       classPriorityModel
		unknown *tftypes.AttributePath
	}{
		"nodepools = var.pools":          {pools, prio.WithAttributeName("nodepools")},
		"tpu = { type = var.t, ... }":    {tpu, prio.WithAttributeName("tpu").WithAttributeName("type")},
		"flex_start = var.x with a wait": {wait, prio.WithAttributeName("flex_start")},
	} {
		var diags diag.Diagnostics
		validateComputeClass(&computeClassModel{Name: types.StringValue("c"), Priorities: []classPriorityModel{tc.p}}, tfvalue.Unknowns{tc.unknown}, &diags)
		if diags.HasError() {
			t.Errorf("%s: %v", name, diags)
		}
		diags = nil
		validateComputeClass(&computeClassModel{Name: types.StringValue("c"), Priorities: []classPriorityModel{tc.p}}, nil, &diags)
		if !diags.HasError() {
			t.Errorf("%s, all known: no error", name)
		}
	}
}

// TestPoolClassSeesHalfJoinedPools: a pool whose class taint was removed or changed by hand reads as not in the class,
// so the plan shows it.
func TestPoolClassSeesHalfJoinedPools(t *testing.T) {
	t.Parallel()
	labels := map[string]string{wellknown.ComputeClassLabel: "c"}
	for _, tc := range []struct {
		name   string
		cfg    *containerpb.NodeConfig
		joined bool
	}{
		{"label and taint", &containerpb.NodeConfig{Labels: labels, Taints: []*containerpb.NodeTaint{classTaint("c")}}, true},
		{"label alone", &containerpb.NodeConfig{Labels: labels}, false},
		{"taint of another class", &containerpb.NodeConfig{Labels: labels, Taints: []*containerpb.NodeTaint{classTaint("d")}}, false},
		{"two class taints", &containerpb.NodeConfig{Labels: labels, Taints: []*containerpb.NodeTaint{classTaint("c"), classTaint("d")}}, false},
		{"taint alone", &containerpb.NodeConfig{Taints: []*containerpb.NodeTaint{classTaint("c")}}, false},
	} {
		got := poolClass(&containerpb.NodePool{Config: tc.cfg})
		if got.Equal(types.StringValue("c")) != tc.joined || got.IsNull() {
			t.Errorf("%s: %v; joined = %v", tc.name, got, tc.joined)
		}
		if _, _, changed := classSettings(&containerpb.NodePool{Config: tc.cfg}, "c"); changed == tc.joined {
			t.Errorf("%s: the apply would change it: %v", tc.name, changed)
		}
	}
}
