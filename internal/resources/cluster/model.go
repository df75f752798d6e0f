package cluster

import (
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkedrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

type clusterModel struct {
	ID                 types.String   `tfsdk:"id"`
	Name               types.String   `tfsdk:"name"`
	Project            types.String   `tfsdk:"project"`
	Location           types.String   `tfsdk:"location"`
	KubernetesVersion  types.String   `tfsdk:"kubernetes_version"`
	ResolvedVersion    types.String   `tfsdk:"resolved_version"`
	MachineType        types.String   `tfsdk:"default_pool_machine_type"`
	NodeCount          types.Int64    `tfsdk:"default_pool_node_count"`
	ImageStreaming     types.Bool     `tfsdk:"image_streaming"`
	RayOperator        types.Bool     `tfsdk:"ray_operator"`
	ReleaseChannel     types.String   `tfsdk:"release_channel"`
	Labels             types.Map      `tfsdk:"labels"`
	DeletionProtection types.Bool     `tfsdk:"deletion_protection"`
	Endpoint           types.String   `tfsdk:"endpoint"`
	CACertificate      types.String   `tfsdk:"ca_certificate"`
	Status             types.String   `tfsdk:"status"`
	Drift              types.List     `tfsdk:"drift"`
	Timeouts           timeouts.Value `tfsdk:"timeouts"`
}

// expandCluster is the cluster the tutorial's `gcloud container clusters create` makes, less gcloud's own choice to
// turn off the add-ons that --addons does not name.
func expandCluster(m *clusterModel) *containerpb.Cluster {
	c := &containerpb.Cluster{
		Name:                  m.Name.ValueString(),
		InitialClusterVersion: m.KubernetesVersion.ValueString(),
		AddonsConfig:          &containerpb.AddonsConfig{RayOperatorConfig: &containerpb.RayOperatorConfig{Enabled: m.RayOperator.ValueBool()}},
		NodePoolDefaults: &containerpb.NodePoolDefaults{NodeConfigDefaults: &containerpb.NodeConfigDefaults{
			GcfsConfig: &containerpb.GcfsConfig{Enabled: m.ImageStreaming.ValueBool()}}},
		NodePools: []*containerpb.NodePool{{
			Name:             "default-pool",
			InitialNodeCount: int32(m.NodeCount.ValueInt64()),
			Config:           &containerpb.NodeConfig{MachineType: m.MachineType.ValueString(), OauthScopes: gke.GcloudDefaultScopes()},
			Management:       &containerpb.NodeManagement{AutoRepair: true, AutoUpgrade: true},
			UpgradeSettings:  &containerpb.NodePool_UpgradeSettings{MaxSurge: 1},
		}},
		ResourceLabels: tfvalue.StringMap(m.Labels),
	}
	if ch, ok := containerpb.ReleaseChannel_Channel_value[m.ReleaseChannel.ValueString()]; ok {
		c.ReleaseChannel = &containerpb.ReleaseChannel{Channel: containerpb.ReleaseChannel_Channel(ch)}
	}
	return c
}

// versionMatches reports whether GKE's resolved version is what the configured one asks for: "1.34" matches every
// 1.34 patch, "latest" and "-" match anything.
func versionMatches(configured, resolved string) bool {
	switch configured {
	case "", "-", "latest":
		return true
	}
	return resolved == configured || strings.HasPrefix(resolved, configured+".") || strings.HasPrefix(resolved, configured+"-")
}

// flattenCluster reads a cluster into m, keeping the configured version spelling while it still matches.
func flattenCluster(m *clusterModel, c *containerpb.Cluster) {
	m.Name = types.StringValue(c.GetName())
	m.ResolvedVersion = types.StringValue(c.GetCurrentMasterVersion())
	switch {
	case m.KubernetesVersion.IsNull():
		// Import: configurations name a minor version ("1.34", the tutorial's and the default), not a patch.
		m.KubernetesVersion = types.StringValue(minorVersion(c.GetCurrentMasterVersion()))
	case !versionMatches(m.KubernetesVersion.ValueString(), c.GetCurrentMasterVersion()):
		m.KubernetesVersion = types.StringValue(c.GetCurrentMasterVersion())
	}
	// The default pool's settings are read on import alone: afterwards `drift` compares the pool, whose repair makes
	// the pool again rather than the cluster.
	if np := gkedrift.ClusterPool(c, "default-pool"); np != nil && (m.MachineType.IsNull() || m.NodeCount.IsNull()) {
		m.MachineType = types.StringValue(np.GetConfig().GetMachineType())
		m.NodeCount = types.Int64Value(int64(np.GetInitialNodeCount()))
	}
	m.ImageStreaming = types.BoolValue(c.GetNodePoolDefaults().GetNodeConfigDefaults().GetGcfsConfig().GetEnabled())
	m.RayOperator = types.BoolValue(c.GetAddonsConfig().GetRayOperatorConfig().GetEnabled())
	m.ReleaseChannel = types.StringValue(c.GetReleaseChannel().GetChannel().String())
	m.Labels = tfvalue.MapValue(c.GetResourceLabels())
	m.Endpoint = types.StringValue(c.GetEndpoint())
	m.CACertificate = types.StringValue(c.GetMasterAuth().GetClusterCaCertificate())
	m.Status = types.StringValue(c.GetStatus().String())
}

// minorVersion is "1.34" of "1.34.1-gke.1829001".
func minorVersion(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}
