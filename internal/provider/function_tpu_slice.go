package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
)

var _ function.Function = (*tpuSliceFunction)(nil)

// NewTPUSliceFunction returns tpu_slice, which sizes a TPU slice from the catalog the pool pairs are checked against,
// so a module can compute quotas and max nodes before any pool exists.
func NewTPUSliceFunction() function.Function { return &tpuSliceFunction{} }

type tpuSliceFunction struct{}

var tpuSliceAttrTypes = map[string]attr.Type{
	"machine_type":    types.StringType,
	"topology":        types.StringType,
	"accelerator":     types.StringType,
	"chips_per_node":  types.Int64Type,
	"nodes_per_slice": types.Int64Type,
	"chips_per_slice": types.Int64Type,
	"multi_host":      types.BoolType,
}

func (f *tpuSliceFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "tpu_slice"
}

func (f *tpuSliceFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "The shape of one TPU slice: chips per node, nodes per slice, chips per slice.",
		MarkdownDescription: "Returns what one slice of a TPU machine type and topology is made of, from the same catalog " +
			"`dwsfallback_tpu_pool_pair` checks its configuration against: `accelerator` (the " +
			"`cloud.google.com/gke-tpu-accelerator` node label), `chips_per_node` (`google.com/tpu` per node), " +
			"`nodes_per_slice`, `chips_per_slice` and `multi_host`. A module sizes a pool's `max_nodes` " +
			"(`nodes_per_slice` times the slices) and a ClusterQueue's `google.com/tpu` quota (`chips_per_slice` times " +
			"the slices) with it, before any pool exists. An unknown machine type, or a topology the type does not take, " +
			"is an error that names what it does take.",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name:                "machine_type",
				MarkdownDescription: "A GKE TPU machine type, e.g. `ct6e-standard-4t`.",
			},
			function.StringParameter{
				Name:                "topology",
				MarkdownDescription: "The slice's TPU topology, e.g. `4x4` or `2x2x2`.",
			},
		},
		Return: function.ObjectReturn{AttributeTypes: tpuSliceAttrTypes},
	}
}

func (f *tpuSliceFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var machineType, topology string
	resp.Error = function.ConcatFuncErrors(req.Arguments.Get(ctx, &machineType, &topology))
	if resp.Error != nil {
		return
	}
	s, err := catalog.NewSlice(machineType, topology)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(argumentOf(machineType), err.Error())
		return
	}
	v, diags := types.ObjectValue(tpuSliceAttrTypes, map[string]attr.Value{
		"machine_type":    types.StringValue(s.MachineType),
		"topology":        types.StringValue(s.Topology),
		"accelerator":     types.StringValue(s.Accelerator),
		"chips_per_node":  types.Int64Value(int64(s.ChipsPerNode)),
		"nodes_per_slice": types.Int64Value(int64(s.NodesPerSlice)),
		"chips_per_slice": types.Int64Value(int64(s.ChipsPerSlice)),
		"multi_host":      types.BoolValue(s.MultiHost()),
	})
	resp.Error = function.FuncErrorFromDiags(ctx, diags)
	if resp.Error == nil {
		resp.Error = resp.Result.Set(ctx, v)
	}
}

// argumentOf points the error at the machine type when the catalog does not know it, else at the topology.
func argumentOf(machineType string) int64 {
	if _, ok := catalog.Lookup(machineType); !ok {
		return 0
	}
	return 1
}
