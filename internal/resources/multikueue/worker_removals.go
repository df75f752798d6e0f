package multikueue

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	mk "github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// privateRemovals lists old credentials that an update could not remove from their worker (it did not answer): each
// still opens its worker, so every later apply tries again, and the plan shows an update until one succeeds.
const privateRemovals = "pending_removals"

// oldCredentials names a ServiceAccount's use by this MultiKueueCluster on a worker cluster: no token, only names.
type oldCredentials struct {
	WorkerCluster  string `json:"worker_cluster"`
	ServiceAccount string `json:"service_account"`
	User           string `json:"user"`
}

func (o oldCredentials) worker() mk.Worker {
	return mk.Worker{ServiceAccount: o.ServiceAccount, User: o.User}
}

func pendingRemovals(ctx context.Context, p tfvalue.PrivateState, diags *diag.Diagnostics) []oldCredentials {
	var list []oldCredentials
	tfvalue.ReadPrivate(ctx, p, privateRemovals, &list, diags)
	return list
}

func recordRemovals(ctx context.Context, p tfvalue.PrivateState, list []oldCredentials, diags *diag.Diagnostics) {
	if len(list) == 0 {
		tfvalue.WritePrivate(ctx, p, privateRemovals, nil, diags)
		return
	}
	tfvalue.WritePrivate(ctx, p, privateRemovals, list, diags)
}
