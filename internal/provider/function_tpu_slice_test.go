package provider

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

func runTPUSlice(machineType, topology string) (map[string]attr.Value, *function.FuncError) {
	req := function.RunRequest{Arguments: function.NewArgumentsData([]attr.Value{types.StringValue(machineType), types.StringValue(topology)})}
	resp := &function.RunResponse{Result: function.NewResultData(types.ObjectUnknown(tpuSliceAttrTypes))}
	(&tpuSliceFunction{}).Run(context.Background(), req, resp)
	if resp.Error != nil {
		return nil, resp.Error
	}
	return resp.Result.Value().(types.Object).Attributes(), nil
}

func TestTPUSliceFunction(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		machineType, topology string
		perNode, nodes, chips int64
		multiHost             bool
	}{
		{"ct6e-standard-4t", "4x4", 4, 4, 16, true}, // the tutorial's pools
		{"ct6e-standard-4t", "2x2", 4, 1, 4, false},
		{"ct6e-standard-8t", "2x4", 8, 1, 8, false},
		{"ct5lp-hightpu-4t", "8x16", 4, 32, 128, true},
		{"ct5p-hightpu-4t", "2x2x4", 4, 4, 16, true},
		{"tpu7x-standard-4t", "2x2x2", 4, 2, 8, true},
		{"tpu7x-standard-4t", "4x4x8", 4, 32, 128, true},
	} {
		got, err := runTPUSlice(tc.machineType, tc.topology)
		if err != nil {
			t.Errorf("%s %s: %v", tc.machineType, tc.topology, err)
			continue
		}
		want := map[string]int64{"chips_per_node": tc.perNode, "nodes_per_slice": tc.nodes, "chips_per_slice": tc.chips}
		have := map[string]int64{}
		for k := range want {
			have[k] = got[k].(types.Int64).ValueInt64()
		}
		if diff := cmp.Diff(want, have); diff != "" || got["multi_host"].(types.Bool).ValueBool() != tc.multiHost {
			t.Errorf("%s %s (-want +got):\n%s multi_host %v", tc.machineType, tc.topology, diff, got["multi_host"])
		}
	}
}

func TestTPUSliceFunctionErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		machineType, topology string
		arg                   int64
		says                  string
	}{
		{"ct9-nope-4t", "4x4", 0, "unknown TPU machine type"},
		{"ct6e-standard-4t", "4x4x4", 1, "takes 2-dimensional topologies"},
		{"ct6e-standard-4t", "3x3", 1, "supports 2x2, 2x4, 4x4"},
		{"ct6e-standard-4t", "four", 1, "must look like AxB"},
	} {
		_, err := runTPUSlice(tc.machineType, tc.topology)
		if err == nil || err.FunctionArgument == nil || *err.FunctionArgument != tc.arg || !strings.Contains(err.Text, tc.says) {
			t.Errorf("%s %s: error %v; want one on argument %d saying %q", tc.machineType, tc.topology, err, tc.arg, tc.says)
		}
	}
}

// TestAccTPUSliceFunction calls the function from a configuration, as a module does, with no provider configured.
func TestAccTPUSliceFunction(t *testing.T) {
	t.Parallel() // no provider state at all
	testutil.RequireAcceptance(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{
			{
				Config: `
locals {
  slice  = provider::dwsfallback::tpu_slice("ct6e-standard-4t", "4x4")
  slices = 2
}
output "max_nodes" { value = local.slice.nodes_per_slice * local.slices }
output "tpu_quota" { value = local.slice.chips_per_slice * local.slices }
output "accelerator" { value = local.slice.accelerator }
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("max_nodes", knownvalue.Int64Exact(8)),
					statecheck.ExpectKnownOutputValue("tpu_quota", knownvalue.Int64Exact(32)),
					statecheck.ExpectKnownOutputValue("accelerator", knownvalue.StringExact("tpu-v6e-slice")),
				},
			},
			{
				Config:      `output "bad" { value = provider::dwsfallback::tpu_slice("ct6e-standard-4t", "3x3") }`,
				ExpectError: regexp.MustCompile(`does not fit machine\s+type ct6e-standard-4t`),
			},
		},
	})
}
