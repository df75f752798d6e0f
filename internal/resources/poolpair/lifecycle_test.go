package poolpair

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// gcloudLifecycleBodies are gcloud 528's bodies for the tutorial's commands with --no-enable-autorepair
// --no-enable-autoupgrade --max-surge-upgrade=2 --max-unavailable-upgrade=1 on plan A and --no-enable-autorepair on
// plan B; captured on loopback.
var gcloudLifecycleBodies = map[string]string{
	"on-demand-pool": `{"nodePool": {"autoscaling": {"enabled": true, "maxNodeCount": 4, "minNodeCount": 0}, "config": {"machineType": "ct6e-standard-4t", "oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write", "https://www.googleapis.com/auth/monitoring", "https://www.googleapis.com/auth/service.management.readonly", "https://www.googleapis.com/auth/servicecontrol", "https://www.googleapis.com/auth/trace.append"], "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"}}, "initialNodeCount": 0, "management": {"autoRepair": false, "autoUpgrade": false}, "name": "on-demand-pool", "placementPolicy": {"tpuTopology": "4x4"}, "upgradeSettings": {"maxSurge": 2, "maxUnavailable": 1}}}`,
	"dws-pool":       `{"nodePool": {"autoscaling": {"enabled": true, "maxNodeCount": 4, "minNodeCount": 0}, "config": {"flexStart": true, "machineType": "ct6e-standard-4t", "oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write", "https://www.googleapis.com/auth/monitoring", "https://www.googleapis.com/auth/service.management.readonly", "https://www.googleapis.com/auth/servicecontrol", "https://www.googleapis.com/auth/trace.append"]}, "initialNodeCount": 0, "management": {"autoRepair": false, "autoUpgrade": true}, "name": "dws-pool", "placementPolicy": {"tpuTopology": "4x4"}, "queuedProvisioning": {"enabled": true}, "upgradeSettings": {"maxSurge": 1}}}`,
}

func TestExpandLifecycleMatchesGcloud(t *testing.T) {
	t.Parallel()
	m := tutorialModel()
	od := poolModel{Name: types.StringValue("on-demand-pool"), ReservationAffinity: types.StringValue("none"),
		AutoRepair: types.BoolValue(false), AutoUpgrade: types.BoolValue(false), MaxSurge: types.Int64Value(2), MaxUnavailable: types.Int64Value(1)}
	fx := poolModel{Name: types.StringValue("dws-pool"), Provisioning: types.StringValue(provisioningFlexStart), AutoRepair: types.BoolValue(false)}
	expandsLikeGcloudPools(t, gcloudLifecycleBodies, m, od, fx)
	// Left out (a state from before these attributes), the kind's defaults: the tutorial's pools.
	expandsLikeGcloud(t, gcloudBodies, m, "on-demand-pool", "dws-pool")
}
