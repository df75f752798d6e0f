package poolpair

import (
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// gcloudBodies are the CreateNodePool bodies gcloud 528 sends for the tutorial's two commands, captured against the
// emulator; TestAccTPUPoolPair_gcloudEquivalence checks the same against today's gcloud.
var gcloudBodies = map[string]string{
	"on-demand-pool": `{"nodePool": {"autoscaling": {"enabled": true, "maxNodeCount": 4, "minNodeCount": 0}, "config": {"machineType": "ct6e-standard-4t", "oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write", "https://www.googleapis.com/auth/monitoring", "https://www.googleapis.com/auth/service.management.readonly", "https://www.googleapis.com/auth/servicecontrol", "https://www.googleapis.com/auth/trace.append"], "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"}}, "initialNodeCount": 0, "management": {"autoRepair": true, "autoUpgrade": true}, "name": "on-demand-pool", "placementPolicy": {"tpuTopology": "4x4"}, "upgradeSettings": {"maxSurge": 1}}}`,
	"dws-pool":       `{"nodePool": {"autoscaling": {"enabled": true, "maxNodeCount": 4, "minNodeCount": 0}, "config": {"flexStart": true, "machineType": "ct6e-standard-4t", "oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write", "https://www.googleapis.com/auth/monitoring", "https://www.googleapis.com/auth/service.management.readonly", "https://www.googleapis.com/auth/servicecontrol", "https://www.googleapis.com/auth/trace.append"]}, "initialNodeCount": 0, "management": {"autoRepair": true, "autoUpgrade": true}, "name": "dws-pool", "placementPolicy": {"tpuTopology": "4x4"}, "queuedProvisioning": {"enabled": true}, "upgradeSettings": {"maxSurge": 1}}}`,
}

// gcloudUnqueuedBody is what gcloud 528 sends for GKE's "Run a small batch workload with TPUs and flex-start" command
// (--reservation-affinity=none --enable-autoscaling --flex-start --num-nodes=0, no queued provisioning), with the
// tutorial's machine type and topology, captured against the emulator.
const gcloudUnqueuedBody = `{"nodePool": {"autoscaling": {"enabled": true, "maxNodeCount": 4, "minNodeCount": 0}, "config": {"flexStart": true, "machineType": "ct6e-standard-4t", "oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write", "https://www.googleapis.com/auth/monitoring", "https://www.googleapis.com/auth/service.management.readonly", "https://www.googleapis.com/auth/servicecontrol", "https://www.googleapis.com/auth/trace.append"], "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"}}, "initialNodeCount": 0, "management": {"autoRepair": true, "autoUpgrade": true}, "name": "flex-start-pool", "placementPolicy": {"tpuTopology": "4x4"}, "upgradeSettings": {"maxSurge": 1}}}`

// expandsLikeGcloudBody checks that plan B's pool, provisioned as mode, is created as gcloud's body says.
func expandsLikeGcloudBody(t *testing.T, body string, m pairModel, pool, mode string) {
	t.Helper()
	want := &containerpb.CreateNodePoolRequest{}
	if err := protojson.Unmarshal([]byte(body), want); err != nil {
		t.Fatal(err)
	}
	got := expandNodePool(flexStartRole, poolModel{Name: types.StringValue(pool), Provisioning: types.StringValue(mode)}, m)
	if diff := cmp.Diff(want.GetNodePool(), got, protocmp.Transform()); diff != "" {
		t.Errorf("%s: request differs from gcloud's (-gcloud +provider):\n%s", mode, diff)
	}
	if provisioningOf(got) != mode {
		t.Errorf("the pool created as %q reads back as %q", mode, provisioningOf(got))
	}
}

func TestExpandUnqueuedFlexStartMatchesGcloud(t *testing.T) {
	t.Parallel()
	expandsLikeGcloudBody(t, gcloudUnqueuedBody, tutorialModel(), "flex-start-pool", provisioningUnqueued)
}

// gcloudClassBody is gcloud 528's body for the same command with GKE's ComputeClass flags for manually created pools,
// --node-labels=cloud.google.com/compute-class=tpu-fallback --node-taints=cloud.google.com/compute-class=tpu-fallback:NoSchedule.
const gcloudClassBody = `{"nodePool": {"autoscaling": {"enabled": true, "maxNodeCount": 4, "minNodeCount": 0}, "config": {"flexStart": true, "labels": {"cloud.google.com/compute-class": "tpu-fallback"}, "machineType": "ct6e-standard-4t", "oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write", "https://www.googleapis.com/auth/monitoring", "https://www.googleapis.com/auth/service.management.readonly", "https://www.googleapis.com/auth/servicecontrol", "https://www.googleapis.com/auth/trace.append"], "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"}, "taints": [{"effect": "NO_SCHEDULE", "key": "cloud.google.com/compute-class", "value": "tpu-fallback"}]}, "initialNodeCount": 0, "management": {"autoRepair": true, "autoUpgrade": true}, "name": "flex-start-pool", "placementPolicy": {"tpuTopology": "4x4"}, "upgradeSettings": {"maxSurge": 1}}}`

func TestExpandClassPoolMatchesGcloud(t *testing.T) {
	t.Parallel()
	m := tutorialModel()
	m.ComputeClass = types.StringValue("tpu-fallback")
	expandsLikeGcloudBody(t, gcloudClassBody, m, "flex-start-pool", provisioningUnqueued)
}

func tutorialModel() *tpuPoolPairModel {
	return &tpuPoolPairModel{
		poolPairModel: poolPairModel{MachineType: types.StringValue("ct6e-standard-4t"), MinNodes: types.Int64Value(0), MaxNodes: types.Int64Value(4),
			NodeLocations: types.SetNull(types.StringType), SecondaryBootDisks: types.ListNull(bootDiskType)},
		TPUTopology: types.StringValue("4x4"),
	}
}

// expandsLikeGcloud checks that the pair m creates the pools onDemand and flex as gcloud's bodies say.
func expandsLikeGcloud(t *testing.T, bodies map[string]string, m pairModel, onDemand, flex string) {
	t.Helper()
	expandsLikeGcloudPools(t, bodies, m, poolModel{Name: types.StringValue(onDemand), ReservationAffinity: types.StringValue("none")},
		poolModel{Name: types.StringValue(flex), Provisioning: types.StringValue(provisioningFlexStart)})
}

// expandsLikeGcloudPools checks that the pair m creates the pools od and fx as gcloud's bodies (by pool name) say.
func expandsLikeGcloudPools(t *testing.T, bodies map[string]string, m pairModel, od, fx poolModel) {
	t.Helper()
	for _, tc := range []struct {
		role poolRole
		pool poolModel
	}{
		{onDemandRole, od},
		{flexStartRole, fx},
	} {
		want := &containerpb.CreateNodePoolRequest{}
		if err := protojson.Unmarshal([]byte(bodies[tc.pool.Name.ValueString()]), want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.GetNodePool(), expandNodePool(tc.role, tc.pool, m), protocmp.Transform()); diff != "" {
			t.Errorf("%s: request differs from gcloud's (-gcloud +provider):\n%s", tc.role.attr, diff)
		}
	}
}

func TestExpandNodePoolMatchesGcloud(t *testing.T) {
	t.Parallel()
	expandsLikeGcloud(t, gcloudBodies, tutorialModel(), "on-demand-pool", "dws-pool")
}

func TestExpandOnDemandAnyReservation(t *testing.T) {
	t.Parallel()
	got := expandNodePool(onDemandRole, poolModel{Name: types.StringValue("od"), ReservationAffinity: types.StringValue("any")}, tutorialModel())
	if got.GetConfig().GetReservationAffinity() != nil {
		t.Errorf("reservation_affinity any: got %v, want GKE's default (no affinity sent)", got.GetConfig().GetReservationAffinity())
	}
}

func TestFlattenNodePool(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		role poolRole
		np   *containerpb.NodePool
		want poolModel
		null bool
	}{
		{name: "nil pool", role: flexStartRole, np: nil, null: true},
		{name: "zero-valued on-demand pool", role: onDemandRole, np: &containerpb.NodePool{},
			want: poolModel{Name: types.StringValue(""), Status: types.StringValue("STATUS_UNSPECIFIED"), NodeLabels: nodeLabels(wellknown.NodePoolLabel, "", "", ""),
				ReservationAffinity: types.StringValue("any"), Provisioning: types.StringNull(), FlexStartEnabled: types.BoolNull(), QueuedProvisioning: types.BoolNull(),
				AutoRepair: types.BoolValue(false), AutoUpgrade: types.BoolValue(false), MaxSurge: types.Int64Value(0), MaxUnavailable: types.Int64Value(0)}},
		{name: "zero-valued flex pool", role: flexStartRole, np: &containerpb.NodePool{Name: "dws"},
			want: poolModel{Name: types.StringValue("dws"), Status: types.StringValue("STATUS_UNSPECIFIED"), NodeLabels: nodeLabels(wellknown.NodePoolLabel, "dws", "", ""),
				ReservationAffinity: types.StringNull(), Provisioning: types.StringValue(""), FlexStartEnabled: types.BoolValue(false), QueuedProvisioning: types.BoolValue(false),
				AutoRepair: types.BoolValue(false), AutoUpgrade: types.BoolValue(false)}},
		{name: "flex-start pool without queued provisioning", role: flexStartRole, np: &containerpb.NodePool{Name: "fs",
			Config: &containerpb.NodeConfig{FlexStart: ptr(true), MachineType: "ct6e-standard-4t"}, PlacementPolicy: &containerpb.NodePool_PlacementPolicy{TpuTopology: "4x4"}},
			want: poolModel{Name: types.StringValue("fs"), Status: types.StringValue("STATUS_UNSPECIFIED"), NodeLabels: nodeLabels(wellknown.NodePoolLabel, "fs", "tpu-v6e-slice", "4x4"),
				ReservationAffinity: types.StringNull(), Provisioning: types.StringValue("flex-start-unqueued"), FlexStartEnabled: types.BoolValue(true), QueuedProvisioning: types.BoolValue(false),
				AutoRepair: types.BoolValue(false), AutoUpgrade: types.BoolValue(false)}},
		{name: "tutorial flex pool", role: flexStartRole, np: &containerpb.NodePool{Name: "dws-pool", Status: containerpb.NodePool_RUNNING,
			Config: &containerpb.NodeConfig{FlexStart: ptr(true), MachineType: "ct6e-standard-4t"}, PlacementPolicy: &containerpb.NodePool_PlacementPolicy{TpuTopology: "4x4"},
			QueuedProvisioning: &containerpb.NodePool_QueuedProvisioning{Enabled: true}, Management: &containerpb.NodeManagement{AutoRepair: true, AutoUpgrade: true}},
			want: poolModel{Name: types.StringValue("dws-pool"), Status: types.StringValue("RUNNING"), NodeLabels: nodeLabels(wellknown.NodePoolLabel, "dws-pool", "tpu-v6e-slice", "4x4"),
				ReservationAffinity: types.StringNull(), Provisioning: types.StringValue("flex-start"), FlexStartEnabled: types.BoolValue(true), QueuedProvisioning: types.BoolValue(true),
				AutoRepair: types.BoolValue(true), AutoUpgrade: types.BoolValue(true)}},
	}
	for _, tc := range cases {
		obj := flattenNodePool(tc.role, tc.np, tutorialModel().liveLabels(tc.np))
		got, ok := tc.role.decodePool(obj)
		if tc.null {
			if ok {
				t.Errorf("%s: got %v, want a null object", tc.name, obj)
			}
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestFlattenPairDrift(t *testing.T) {
	t.Parallel()
	pool := func(name string, maxN int32) *containerpb.NodePool {
		return &containerpb.NodePool{Name: name, Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, MaxNodeCount: maxN},
			Config: &containerpb.NodeConfig{MachineType: "ct6e-standard-4t"}, PlacementPolicy: &containerpb.NodePool_PlacementPolicy{TpuTopology: "4x4"}}
	}
	st := tutorialModel()
	ref := clusterscope.Ref{Project: "p", Location: "l", Name: "c"}
	// Only the flex pool was changed by hand: its bound must reach state whatever the order of the pools.
	flattenPair(st, ref, pool("od", 4), pool("dws", 12), false)
	if st.MaxNodes.ValueInt64() != 12 {
		t.Errorf("max_nodes = %d, want the drifted 12", st.MaxNodes.ValueInt64())
	}
	// The same by hand on the on-demand pool, which comes first.
	st = tutorialModel()
	flattenPair(st, ref, pool("od", 12), pool("dws", 4), false)
	if st.MaxNodes.ValueInt64() != 12 {
		t.Errorf("on-demand drift: max_nodes = %d, want the drifted 12", st.MaxNodes.ValueInt64())
	}
	st = tutorialModel()
	flattenPair(st, ref, nil, nil, false)
	if !st.OnDemand.IsNull() || !st.FlexStart.IsNull() || st.MaxNodes.ValueInt64() != 4 {
		t.Errorf("no pools: got %+v, want null pools and the bounds left alone", st)
	}
}

func TestParseIDs(t *testing.T) {
	t.Parallel()
	ref, od, flex, err := splitPoolPairID("projects/p/locations/us-east5-b/clusters/tpu-cluster/nodePools/on-demand-pool,dws-pool")
	if err != nil || ref != (clusterscope.Ref{Project: "p", Location: "us-east5-b", Name: "tpu-cluster"}) || od != "on-demand-pool" || flex != "dws-pool" {
		t.Errorf("splitPoolPairID = %v %q %q %v", ref, od, flex, err)
	}
	for _, bad := range []string{"tpu-cluster", "projects/p/locations/l/clusters/c/nodePools/a", "projects/p/locations/l/clusters/c/nodePools/a,a", "x/nodePools/a,b"} {
		if _, _, _, err := splitPoolPairID(bad); err == nil {
			t.Errorf("splitPoolPairID(%q) accepted a malformed id", bad)
		}
	}
	if !clusterscope.Same("tpu-cluster", "projects/p/locations/l/clusters/tpu-cluster") || clusterscope.Same("a", "b") ||
		clusterscope.Same("projects/p/locations/l/clusters/c", "projects/q/locations/l/clusters/c") {
		t.Error("clusterscope.Same does not tell spellings of one cluster from different clusters")
	}
}

func ptr[T any](v T) *T { return &v }

// gcloudTPU7xBodies are gcloud 528's bodies for testutil.TPU7xPools (2x2x2 placed by workload policy wp).
var gcloudTPU7xBodies = map[string]string{
	"od7":  `{"nodePool": {"autoscaling": {"enabled": true, "maxNodeCount": 4, "minNodeCount": 0}, "config": {"machineType": "tpu7x-standard-4t", "oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write", "https://www.googleapis.com/auth/monitoring", "https://www.googleapis.com/auth/service.management.readonly", "https://www.googleapis.com/auth/servicecontrol", "https://www.googleapis.com/auth/trace.append"], "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"}}, "initialNodeCount": 0, "management": {"autoRepair": true, "autoUpgrade": true}, "name": "od7", "placementPolicy": {"policyName": "wp", "tpuTopology": "2x2x2"}, "upgradeSettings": {"maxSurge": 1}}}`,
	"dws7": `{"nodePool": {"autoscaling": {"enabled": true, "maxNodeCount": 4, "minNodeCount": 0}, "config": {"flexStart": true, "machineType": "tpu7x-standard-4t", "oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write", "https://www.googleapis.com/auth/monitoring", "https://www.googleapis.com/auth/service.management.readonly", "https://www.googleapis.com/auth/servicecontrol", "https://www.googleapis.com/auth/trace.append"]}, "initialNodeCount": 0, "management": {"autoRepair": true, "autoUpgrade": true}, "name": "dws7", "placementPolicy": {"policyName": "wp", "tpuTopology": "2x2x2"}, "queuedProvisioning": {"enabled": true}, "upgradeSettings": {"maxSurge": 1}}}`,
}

func TestExpandTPU7xMatchesGcloud(t *testing.T) {
	t.Parallel()
	m := &tpuPoolPairModel{
		poolPairModel: poolPairModel{MachineType: types.StringValue("tpu7x-standard-4t"), MinNodes: types.Int64Value(0), MaxNodes: types.Int64Value(4)},
		TPUTopology:   types.StringValue("2x2x2"), PlacementPolicy: types.StringValue("wp"),
	}
	expandsLikeGcloud(t, gcloudTPU7xBodies, m, "od7", "dws7")
	// A single-host TPU7x pool carries no topology (GKE refuses one) and reads back as its one-node shape.
	m.TPUTopology, m.PlacementPolicy = types.StringValue("2x2x1"), types.StringNull()
	np := expandNodePool(onDemandRole, poolModel{Name: types.StringValue("od7")}, m)
	if np.GetPlacementPolicy() != nil || gke.PoolTopology(np) != "2x2x1" {
		t.Errorf("single-host TPU7x: placement %v, topology read back %q; want none and 2x2x1", np.GetPlacementPolicy(), gke.PoolTopology(np))
	}
}
