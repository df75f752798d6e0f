package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

// kubeFor returns the Kubernetes clients for a resource's cluster attributes: through GKE when cluster is set, else
// through the provider's kubernetes block.
func kubeFor(ctx context.Context, c clients, cluster, project, location types.String, diags *diag.Diagnostics) (*kube.Clients, bool) {
	return connectKube(ctx, c, cluster, project, location, diags, nil)
}

// connectKube is kubeFor; when GKE no longer has the cluster and gone is not nil, it calls gone instead of reporting
// an error.
func connectKube(ctx context.Context, c clients, cluster, project, location types.String, diags *diag.Diagnostics, gone func(clusterRef)) (*kube.Clients, bool) {
	var ref clusterRef
	if !cluster.IsNull() {
		var err error
		if ref, err = resolveCluster(cluster.ValueString(), project.ValueString(), location.ValueString(), c); err != nil {
			diags.AddAttributeError(path.Root("cluster"), "Cannot tell which cluster", err.Error())
			return nil, false
		}
	} else if !c.HasKubernetesBlock() {
		diags.AddAttributeError(path.Root("cluster"), "No cluster",
			"Set cluster (the GKE cluster's name or id), or give the provider a kubernetes block that names the cluster.")
		return nil, false
	}
	k, err := c.Kube(ctx, ref)
	if gone != nil && !cluster.IsNull() && gke.IsNotFound(err) {
		gone(ref)
		return nil, false
	}
	if err != nil {
		diags.AddError("connecting to Kubernetes", err.Error())
		return nil, false
	}
	return k, true
}

// providerClients reads the provider's clients from a Configure request's ProviderData, which is nil until the
// provider itself is configured.
func providerClients(data any, diags *diag.Diagnostics) clients {
	if data == nil {
		return nil
	}
	c, ok := data.(clients)
	if !ok {
		diags.AddError("Unexpected Configure Type", fmt.Sprintf("Expected provider clients, got %T. Please report this issue to the provider developers.", data))
		return nil
	}
	return c
}

// kubeForRead is kubeFor for Read: when GKE no longer has the cluster, the objects went with it, so the resource
// leaves state (and is planned again) instead of failing every plan.
func kubeForRead(ctx context.Context, c clients, cluster, project, location types.String, resp *resource.ReadResponse) (*kube.Clients, bool) {
	return connectKube(ctx, c, cluster, project, location, &resp.Diagnostics, func(ref clusterRef) {
		resp.Diagnostics.AddWarning("Cluster not found",
			fmt.Sprintf("GKE has no cluster %s any more; its Kubernetes objects went with it and will be planned again.", ref))
		resp.State.RemoveResource(ctx)
	})
}
