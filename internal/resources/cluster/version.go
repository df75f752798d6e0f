package cluster

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
)

// warnServedVersion warns when the cluster's API server runs another Kubernetes minor than GKE reports for it. GKE's
// never does; the local stack's control planes run one version whatever a cluster asks for, and say so here rather
// than pretend. Called after a create or a version change only, so the warning comes once; unread, it says nothing.
func warnServedVersion(ctx context.Context, c clusterscope.Clients, ref clusterscope.Ref, cl *containerpb.Cluster, diags *diag.Diagnostics) {
	want := minorVersion(cl.GetCurrentMasterVersion())
	if want == "" || cl.GetEndpoint() == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	k, err := c.Kube(ctx, ref)
	if err != nil {
		return
	}
	v, err := k.ServerVersion(ctx)
	if err != nil {
		return
	}
	served := v.Major + "." + strings.TrimSuffix(v.Minor, "+")
	if served == want {
		return
	}
	diags.AddWarning("Control plane runs another Kubernetes minor",
		fmt.Sprintf("GKE reports cluster %s at %s, but its API server (%s) runs Kubernetes %s. On GKE the two always agree; a local "+
			"stack runs one Kubernetes version for every cluster. Objects and behaviour are those of %s.", ref.Name, cl.GetCurrentMasterVersion(), k.Host, v.GitVersion, v.GitVersion))
}
