package poolpair

import (
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/testing/protocmp"
)

// gcloudBlueGreen are gcloud 528's upgradeSettings for `node-pools create` with --enable-blue-green-upgrade and the
// flags named, captured on loopback.
var gcloudBlueGreen = map[string]string{
	"--node-pool-soak-duration=600s --standard-rollout-policy=batch-node-count=1,batch-soak-duration=60s": `{"blueGreenSettings": {"nodePoolSoakDuration": "600s", "standardRolloutPolicy": {"batchNodeCount": 1, "batchSoakDuration": "60s"}}, "maxSurge": 1, "strategy": "BLUE_GREEN"}`,
	"--standard-rollout-policy=batch-percent=0.25":                                                        `{"blueGreenSettings": {"standardRolloutPolicy": {"batchPercentage": 0.25}}, "maxSurge": 1, "strategy": "BLUE_GREEN"}`,
	"": `{"maxSurge": 1, "strategy": "BLUE_GREEN"}`,
}

func blueGreenObject(soak, batchSoak types.String, count types.Int64, share types.Float64) types.Object {
	return types.ObjectValueMust(blueGreenTypes, map[string]attr.Value{
		"node_pool_soak_duration": soak, "batch_soak_duration": batchSoak, "batch_node_count": count, "batch_percentage": share})
}

func TestBlueGreenMatchesGcloud(t *testing.T) {
	t.Parallel()
	null := types.StringNull()
	for flags, obj := range map[string]types.Object{
		"--node-pool-soak-duration=600s --standard-rollout-policy=batch-node-count=1,batch-soak-duration=60s": blueGreenObject(
			types.StringValue("600s"), types.StringValue("60s"), types.Int64Value(1), types.Float64Null()),
		"--standard-rollout-policy=batch-percent=0.25": blueGreenObject(null, null, types.Int64Null(), types.Float64Value(0.25)),
		"": blueGreenObject(null, null, types.Int64Null(), types.Float64Null()),
	} {
		want := &containerpb.NodePool_UpgradeSettings{}
		if err := protojson.Unmarshal([]byte(gcloudBlueGreen[flags]), want); err != nil {
			t.Fatal(err)
		}
		od := poolModel{Name: types.StringValue("od"), ReservationAffinity: types.StringValue("none"), MaxSurge: types.Int64Value(1), BlueGreen: obj}
		np := expandNodePool(onDemandRole, od, gpuModel())
		if diff := cmp.Diff(want, np.GetUpgradeSettings(), protocmp.Transform()); diff != "" {
			t.Errorf("%q: upgradeSettings differ from gcloud's (-gcloud +provider):\n%s", flags, diff)
		}
		// What GKE keeps reads back as the object that asked for it.
		if got := flattenBlueGreen(&containerpb.NodePool{UpgradeSettings: want}); !got.Equal(obj) {
			t.Errorf("%q: read back as %v, want %v", flags, got, obj)
		}
	}
}

func TestBlueGreenReadsOnlyItsStrategy(t *testing.T) {
	t.Parallel()
	// gcloud's --enable-surge-upgrade keeps the blue-green settings beside the surge strategy.
	back := &containerpb.NodePool_UpgradeSettings{}
	if err := protojson.Unmarshal([]byte(`{"blueGreenSettings": {"nodePoolSoakDuration": "600s"}, "maxSurge": 1, "strategy": "SURGE"}`), back); err != nil {
		t.Fatal(err)
	}
	if got := flattenBlueGreen(&containerpb.NodePool{UpgradeSettings: back}); !got.IsNull() {
		t.Errorf("a surge pool reads blue_green %v, want null", got)
	}
	// A share that float32 cannot hold exactly reads back as written.
	third := &containerpb.NodePool_UpgradeSettings{Strategy: containerpb.NodePoolUpdateStrategy_BLUE_GREEN.Enum(),
		BlueGreenSettings: &containerpb.BlueGreenSettings{RolloutPolicy: &containerpb.BlueGreenSettings_StandardRolloutPolicy_{
			StandardRolloutPolicy: &containerpb.BlueGreenSettings_StandardRolloutPolicy{
				UpdateBatchSize: &containerpb.BlueGreenSettings_StandardRolloutPolicy_BatchPercentage{BatchPercentage: 0.3}}}}}
	got, _ := decodeBlueGreen(flattenBlueGreen(&containerpb.NodePool{UpgradeSettings: third}))
	if got.BatchPercentage.ValueFloat64() != 0.3 {
		t.Errorf("batch_percentage 0.3 reads back as %v", got.BatchPercentage.ValueFloat64())
	}
}
