package cluster

import (
	"context"
	"fmt"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
)

// clusterDiffers lists how an existing cluster differs from the configuration in what the cluster was created with.
func clusterDiffers(m *clusterModel, c *containerpb.Cluster) []string {
	var have clusterModel
	flattenCluster(&have, c)
	var out []string
	if !versionMatches(m.KubernetesVersion.ValueString(), c.GetCurrentMasterVersion()) {
		out = append(out, fmt.Sprintf("version %s, not %s", c.GetCurrentMasterVersion(), m.KubernetesVersion.ValueString()))
	}
	if !have.MachineType.Equal(m.MachineType) {
		out = append(out, fmt.Sprintf("default pool of %s, not %s", have.MachineType.ValueString(), m.MachineType.ValueString()))
	}
	if !have.RayOperator.Equal(m.RayOperator) {
		out = append(out, fmt.Sprintf("RayOperator add-on %v, not %v", have.RayOperator.ValueBool(), m.RayOperator.ValueBool()))
	}
	if !have.ImageStreaming.Equal(m.ImageStreaming) {
		out = append(out, fmt.Sprintf("image streaming %v, not %v", have.ImageStreaming.ValueBool(), m.ImageStreaming.ValueBool()))
	}
	return out
}

func (r *clusterResource) connect(ctx context.Context, m *clusterModel, diags *diag.Diagnostics) (*gke.Client, clusterscope.Ref, bool) {
	return clusterscope.GKE(ctx, r.clients, m.Name, m.Project, m.Location, path.Root("location"), diags)
}
