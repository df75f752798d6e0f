package poolpair

import (
	"context"
	"encoding/json"
	"fmt"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkedrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// privatePoolBaselines keeps, per pool name, the pool the provider's last apply asked GKE for (as GKE makes it): Read
// compares each live pool with it, field by field, whatever the pair's shared attributes say now.
const privatePoolBaselines = "pool_baselines"

// wantedPool is what the pair's apply makes of role's pool, as GKE makes it.
func wantedPool(role poolRole, m pairModel) (*containerpb.NodePool, bool) {
	p, ok := role.decodePool(role.get(m.pair()))
	if !ok || !tfvalue.Known(m.pair().MachineType) {
		return nil, false
	}
	return gkedrift.Made(expandNodePool(role, p, m)), true
}

func readPoolBaselines(ctx context.Context, p tfvalue.PrivateGetter, diags *diag.Diagnostics) map[string]*containerpb.NodePool {
	var raw map[string]json.RawMessage
	tfvalue.ReadPrivate(ctx, p, privatePoolBaselines, &raw, diags)
	out := map[string]*containerpb.NodePool{}
	for name, b := range raw {
		np := &containerpb.NodePool{}
		if protojson.Unmarshal(b, np) == nil {
			out[name] = np
		}
	}
	return out
}

func writePoolBaselines(ctx context.Context, p tfvalue.PrivateState, baselines map[string]*containerpb.NodePool, diags *diag.Diagnostics) {
	raw := map[string]json.RawMessage{}
	for name, np := range baselines {
		if b, err := protojson.Marshal(np); err == nil {
			raw[name] = b
		}
	}
	tfvalue.WritePrivate(ctx, p, privatePoolBaselines, raw, diags)
}

// repairInPlace sets again, on each pool of the pair, the fields GKE changes in place that differ from what the apply
// makes of m: autoscaling, management, upgrade settings, node labels, taints and the run limit, each with the call that sets it.
func repairInPlace(ctx context.Context, client *gke.Client, ref clusterscope.Ref, m pairModel) error {
	pools, err := gke.ListPools(ctx, client, ref.String())
	if err != nil {
		return err
	}
	for _, role := range poolRoles {
		for _, want := range wantedPools(role, m) {
			have := pools[want.GetName()]
			if have == nil {
				continue
			}
			calls := gkedrift.InPlaceRepairs(client, ref.String()+"/nodePools/"+have.GetName(), want, have)
			for _, call := range calls {
				if err := client.Mutate(ctx, ref.String(), call, nil); err != nil {
					return fmt.Errorf("node pool %s: %w", have.GetName(), err)
				}
			}
		}
	}
	return nil
}
