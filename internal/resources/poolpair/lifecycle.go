package poolpair

import (
	"fmt"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// How GKE keeps each pool's nodes: auto-repair and auto-upgrade (gcloud's --[no-]enable-autorepair and
// --[no-]enable-autoupgrade, SetNodePoolManagement) and, on plan A, surge upgrades (--max-surge-upgrade and
// --max-unavailable-upgrade, UpdateNodePool's upgradeSettings). Plan B's upgrades are GKE's own (SHORT_LIVED).

// expandLifecycle sets on np what p says of its lifecycle; an unset value leaves what the kind made (the tutorial's
// defaults, or the GPU plan B's auto-repair off).
func expandLifecycle(r poolRole, p poolModel, np *containerpb.NodePool) {
	if tfvalue.Known(p.AutoRepair) {
		np.Management.AutoRepair = p.AutoRepair.ValueBool()
	}
	if tfvalue.Known(p.AutoUpgrade) {
		np.Management.AutoUpgrade = p.AutoUpgrade.ValueBool()
	}
	if r.flex {
		return
	}
	if tfvalue.Known(p.MaxSurge) {
		np.UpgradeSettings.MaxSurge = int32(p.MaxSurge.ValueInt64()) //nolint:gosec // validated to 0..100
	}
	if tfvalue.Known(p.MaxUnavailable) {
		np.UpgradeSettings.MaxUnavailable = int32(p.MaxUnavailable.ValueInt64()) //nolint:gosec // validated to 0..100
	}
	expandBlueGreen(p.BlueGreen, np.UpgradeSettings)
}

// lifecycleAttributes are a pool's auto-repair and auto-upgrade; autoRepair is the default of the first.
func lifecycleAttributes(role string, autoRepair bool) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"auto_repair": schema.BoolAttribute{
			Optional:            true,
			Computed:            true,
			Default:             booldefault.StaticBool(autoRepair),
			MarkdownDescription: fmt.Sprintf("Whether GKE repairs the %s pool's unhealthy nodes (gcloud's `--[no-]enable-autorepair`, default `%t`). Updated in place.", role, autoRepair),
		},
		"auto_upgrade": schema.BoolAttribute{
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(true),
			MarkdownDescription: "Whether GKE upgrades the " + role + " pool's nodes with the cluster (gcloud's `--[no-]enable-autoupgrade`, default `true`). " +
				"GKE refuses `false` on a cluster enrolled in a release channel (`Auto_upgrade cannot be false when release_channel REGULAR is set.`): set the cluster's `release_channel = \"UNSPECIFIED\"` first. Updated in place.",
		},
	}
}
