package poolpair

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// gcloudGPUBodies are the CreateNodePool bodies gcloud 528 sends for testutil.GPUPools (a3-highgpu-8g, 8 H100,
// driver latest), captured against the emulator; TestAccGPUPoolPair_gcloudEquivalence checks the same against today's gcloud.
var gcloudGPUBodies = map[string]string{
	"od":  `{"nodePool": {"autoscaling": {"enabled": true, "maxNodeCount": 4, "minNodeCount": 0}, "config": {"accelerators": [{"acceleratorCount": "8", "acceleratorType": "nvidia-h100-80gb", "gpuDriverInstallationConfig": {"gpuDriverVersion": "LATEST"}}], "machineType": "a3-highgpu-8g", "oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write", "https://www.googleapis.com/auth/monitoring", "https://www.googleapis.com/auth/service.management.readonly", "https://www.googleapis.com/auth/servicecontrol", "https://www.googleapis.com/auth/trace.append"], "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"}}, "initialNodeCount": 0, "management": {"autoRepair": true, "autoUpgrade": true}, "name": "od", "upgradeSettings": {"maxSurge": 1}}}`,
	"dws": `{"nodePool": {"autoscaling": {"enabled": true, "locationPolicy": "ANY", "totalMaxNodeCount": 4}, "config": {"accelerators": [{"acceleratorCount": "8", "acceleratorType": "nvidia-h100-80gb", "gpuDriverInstallationConfig": {"gpuDriverVersion": "LATEST"}}], "flexStart": true, "machineType": "a3-highgpu-8g", "oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write", "https://www.googleapis.com/auth/monitoring", "https://www.googleapis.com/auth/service.management.readonly", "https://www.googleapis.com/auth/servicecontrol", "https://www.googleapis.com/auth/trace.append"], "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"}}, "initialNodeCount": 0, "management": {"autoRepair": false, "autoUpgrade": true}, "name": "dws", "queuedProvisioning": {"enabled": true}, "upgradeSettings": {"maxSurge": 1}}}`,
}

// gcloudGPUUnqueuedBody is gcloud 528's body for GKE's "Run a small batch workload with GPUs and Flex-start VMs"
// command (--flex-start --enable-autoscaling --total-max-nodes --location-policy ANY --reservation-affinity none
// --no-enable-autorepair, no queued provisioning): the queued pool's body without queuedProvisioning.
var gcloudGPUUnqueuedBody = strings.Replace(gcloudGPUBodies["dws"], `, "queuedProvisioning": {"enabled": true}`, "", 1)

func TestExpandGPUUnqueuedFlexStartMatchesGcloud(t *testing.T) {
	t.Parallel()
	expandsLikeGcloudBody(t, gcloudGPUUnqueuedBody, gpuModel(), "dws", provisioningUnqueued)
}

func gpuModel() *gpuPoolPairModel {
	m := &gpuPoolPairModel{
		poolPairModel:    poolPairModel{MachineType: types.StringValue("a3-highgpu-8g"), MinNodes: types.Int64Value(0), MaxNodes: types.Int64Value(4)},
		GPUDriverVersion: types.StringValue("latest"),
	}
	m.derive()
	return m
}

func TestExpandGPUPoolMatchesGcloud(t *testing.T) {
	t.Parallel()
	expandsLikeGcloud(t, gcloudGPUBodies, gpuModel(), "od", "dws")
}

func TestGPUModelReadsWhatItWrites(t *testing.T) {
	t.Parallel()
	m := gpuModel()
	np := expandNodePool(flexStartRole, poolModel{Name: types.StringValue("dws"), Provisioning: types.StringValue(provisioningQueued)}, m)
	got := &gpuPoolPairModel{}
	got.flattenKind(np)
	if got.GPUType.ValueString() != "nvidia-h100-80gb" || got.GPUsPerNode.ValueInt64() != 8 || got.GPUDriverVersion.ValueString() != "latest" {
		t.Errorf("flattenKind = %s x %d, driver %s; want 8 x nvidia-h100-80gb, latest", got.GPUType, got.GPUsPerNode.ValueInt64(), got.GPUDriverVersion)
	}
	if lo, hi := poolBounds(np.GetAutoscaling()); lo != 0 || hi != 4 || np.GetConfig().GetFlexStart() {
		t.Errorf("queued plan B: bounds %d..%d, flexStart %v; want 0..4 over all zones and no flex-start", lo, hi, np.GetConfig().GetFlexStart())
	}
	if diff := cmp.Diff(map[string]string{"cloud.google.com/gke-nodepool": "dws", "cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}, tfvalue.StringMap(m.liveLabels(np))); diff != "" {
		t.Errorf("node labels (-want +got):\n%s", diff)
	}
}
