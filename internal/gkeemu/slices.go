package gkeemu

import (
	"cloud.google.com/go/container/apiv1/containerpb"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
)

// A multi-host TPU slice pool holds one slice: GKE's "About TPUs in GKE" (concepts/tpus) says that once such a pool
// exists no node can be added to it, and that another slice takes another node pool; its VMs are one atomic unit,
// scaled to 0 and back whole. GKE checks the pool's per-zone maximum against the slice: a maximum other than the
// slice's nodes is refused in the words vllm-project/ci-infra#545 and yangwhale/gpu-tpu-pedia
// (tpu/Hunyuan3-295B-Pretraining/README.md) quote, "Maximum node count 0 is not a valid size of TPU pod slice with
// topology "2x2x4"" (the per-zone maximum is 0 when only total counts are set). Neither gives the HTTP status: 400
// INVALID_ARGUMENT, as GKE's other request checks, is the emulator's assumption (FIDELITY.md).
func validateSliceBounds(as *containerpb.NodePoolAutoscaling, sl catalog.Slice) *apiError {
	if !sl.MultiHost() {
		return nil
	}
	n := int32(sl.NodesPerSlice) //nolint:gosec // a slice has at most a few hundred nodes
	if as.MaxNodeCount != n {
		return invalid("Maximum node count %d is not a valid size of TPU pod slice with topology %q", as.MaxNodeCount, sl.Topology)
	}
	if as.MinNodeCount != 0 && as.MinNodeCount != n {
		// No source quotes GKE's answer: plain words, marked as the emulator's.
		return invalid("gkeemu: minimum node count %d of a multi-host TPU slice pool (%s, %d nodes) must be 0 or %d: the slice scales whole.",
			as.MinNodeCount, sl.Topology, n, n)
	}
	return nil
}

// gangSizeError is Compute Engine's refusal of a managed instance group of a multi-host slice ("gang mode") sized
// other than the slice, which GKE reports in the operation's error (AI-Hypercomputer/xpk#751, a create of 16 nodes
// for a gang of 8: canonical code INVALID_ARGUMENT, in the operation, not in the HTTP answer). nil when size fits.
func gangSizeError(sl catalog.Slice, size int32) *apiError {
	if !sl.MultiHost() || size == 0 || size == int32(sl.NodesPerSlice) { //nolint:gosec // see above
		return nil
	}
	return invalid("Google Compute Engine: Invalid value for field 'resource.resizeBy': '%d'. Requested invalid target size '%d' for a Managed Instance Group in the gang mode of size '%d'. Should be equal to the gang size.",
		size, size, sl.NodesPerSlice)
}
