package poolpair

import (
	"context"
	"fmt"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/listing"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// ListTPUKind is the TPU pool pair's list resource: the pairs a cluster's TPU node pools form (gke.Pairs).
func ListTPUKind() listing.Kind { return listKind("tpu_pool_pair", "TPU", catalog.IsTPU) }

// ListGPUKind is the GPU pool pair's list resource: the pairs a cluster's GPU node pools form (gke.Pairs).
func ListGPUKind() listing.Kind { return listKind("gpu_pool_pair", "GPU", catalog.IsGPU) }

func listKind(name, noun string, machines func(string) bool) listing.Kind {
	return listing.Kind{
		Name:     name,
		Identity: poolPairIdentity,
		Attributes: map[string]listschema.Attribute{
			"cluster": listschema.StringAttribute{Optional: true, // required in effect: pools are listed through GKE
				MarkdownDescription: "The GKE cluster to list in: its name, or its id `projects/PROJECT/locations/LOCATION/clusters/NAME`."},
			"machine_type": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only the pairs of this machine type."},
		},
		Find: func(ctx context.Context, c clusterscope.Clients, cfg tfsdk.Config, limit int64) ([]listing.Found, diag.Diagnostics) {
			return findPairs(ctx, c, cfg, limit, noun, machines)
		},
	}
}

// findPairs reads the cluster's node pools in one ListNodePools and pairs them.
func findPairs(ctx context.Context, c clusterscope.Clients, cfg tfsdk.Config, limit int64, noun string, machines func(string) bool) ([]listing.Found, diag.Diagnostics) {
	var diags diag.Diagnostics
	var cluster, machine types.String
	if !listing.Strings(ctx, cfg, &diags, map[string]*types.String{"cluster": &cluster, "machine_type": &machine}) {
		return nil, diags
	}
	if cluster.IsNull() {
		diags.AddAttributeError(path.Root("cluster"), "No cluster", "Pool pairs are listed through GKE: set cluster.")
		return nil, diags
	}
	ref, _, ok := listing.Scope(ctx, c, cfg, &diags)
	if !ok {
		return nil, diags
	}
	client, err := c.GKE(ctx)
	if err != nil {
		diags.AddError("connecting to GKE", err.Error())
		return nil, diags
	}
	pools, err := gke.ListPools(ctx, client, ref.String())
	if err != nil {
		diags.AddError(fmt.Sprintf("listing node pools of cluster (%s)", ref), err.Error())
		return nil, diags
	}
	accept := func(np *containerpb.NodePool) bool {
		mt := np.GetConfig().GetMachineType()
		// A further slice of a plan belongs to the pair of that plan's first pool.
		group, grouped := np.GetConfig().GetLabels()[wellknown.SliceGroupLabel]
		return machines(mt) && (machine.IsNull() || mt == machine.ValueString()) && (!grouped || group == np.GetName())
	}
	var found []listing.Found
	for _, p := range gke.Pairs(pools, accept, func(np *containerpb.NodePool) string { return poolClass(np).String() }) {
		np := pools[p.OnDemand]
		shape := np.GetConfig().GetMachineType()
		if t := gke.PoolTopology(np); t != "" {
			shape += " " + t
		}
		found = append(found, listing.Found{
			ID:          poolPairID(ref, p.OnDemand, p.FlexStart),
			DisplayName: fmt.Sprintf("%s pools %s and %s (%s)", noun, p.OnDemand, p.FlexStart, shape),
		})
		if limit > 0 && int64(len(found)) >= limit {
			break
		}
	}
	return found, diags
}
