package computeclass

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

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
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
		"joined":     {Name: "joined", Autoscaling: auto, Config: &containerpb.NodeConfig{Labels: labels, Taints: []*containerpb.NodeTaint{gke.ClassTaint("c")}}},
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
