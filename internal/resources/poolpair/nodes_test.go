package poolpair

import (
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkedrift"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/testing/protocmp"
)

// gcloudNodeBodies are gcloud 528's CreateNodePool bodies for the tutorial's two commands with a team's node
// settings: --service-account, --labels=team=ml,cost-center=42, --tags=tpu,ml, --node-labels=team=ml and
// --node-taints=dedicated=ml:NoSchedule on both, --scopes=cloud-platform on plan B; captured from gcloud on loopback.
var gcloudNodeBodies = map[string]string{
	"on-demand-pool": `{"nodePool": {"autoscaling": {"enabled": true, "maxNodeCount": 4, "minNodeCount": 0}, "config": {"labels": {"team": "ml"}, "machineType": "ct6e-standard-4t", "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/userinfo.email"], "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"}, "resourceLabels": {"cost-center": "42", "team": "ml"}, "serviceAccount": "tpu-nodes@dwsfallback-local.iam.gserviceaccount.com", "tags": ["tpu", "ml"], "taints": [{"effect": "NO_SCHEDULE", "key": "dedicated", "value": "ml"}]}, "initialNodeCount": 0, "management": {"autoRepair": true, "autoUpgrade": true}, "name": "on-demand-pool", "placementPolicy": {"tpuTopology": "4x4"}, "upgradeSettings": {"maxSurge": 1}}}`,
	"dws-pool":       `{"nodePool": {"autoscaling": {"enabled": true, "maxNodeCount": 4, "minNodeCount": 0}, "config": {"flexStart": true, "labels": {"team": "ml"}, "machineType": "ct6e-standard-4t", "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform"], "resourceLabels": {"cost-center": "42", "team": "ml"}, "serviceAccount": "tpu-nodes@dwsfallback-local.iam.gserviceaccount.com", "tags": ["tpu", "ml"], "taints": [{"effect": "NO_SCHEDULE", "key": "dedicated", "value": "ml"}]}, "initialNodeCount": 0, "management": {"autoRepair": true, "autoUpgrade": true}, "name": "dws-pool", "placementPolicy": {"tpuTopology": "4x4"}, "queuedProvisioning": {"enabled": true}, "upgradeSettings": {"maxSurge": 1}}}`,
}

// nodeSettingsModel is the tutorial's pair with those settings; scopes says plan B's.
func nodeSettingsModel(scopes ...string) *tpuPoolPairModel {
	m := tutorialModel()
	m.ServiceAccount = types.StringValue("tpu-nodes@dwsfallback-local.iam.gserviceaccount.com")
	m.OauthScopes = types.SetNull(types.StringType)
	if len(scopes) > 0 {
		m.OauthScopes = types.SetValueMust(types.StringType, stringValues(scopes))
	}
	m.ResourceLabels = types.MapValueMust(types.StringType, mapValues(map[string]string{"team": "ml", "cost-center": "42"}))
	m.NetworkTags = types.ListValueMust(types.StringType, stringValues([]string{"tpu", "ml"}))
	m.Labels = types.MapValueMust(types.StringType, mapValues(map[string]string{"team": "ml"}))
	m.Taints = types.ListValueMust(taintType, []attr.Value{types.ObjectValueMust(taintAttrTypes, map[string]attr.Value{
		"key": types.StringValue("dedicated"), "value": types.StringValue("ml"), "effect": types.StringValue("NO_SCHEDULE")})})
	withDisk(m, "hyperdisk-balanced", 100, false)
	return m
}

// withDisk sets the boot disk and gVNIC as a plan has them.
func withDisk(m *tpuPoolPairModel, diskType string, sizeGB int64, gvnic bool) *tpuPoolPairModel {
	m.DiskType, m.DiskSizeGB, m.Gvnic = types.StringValue(diskType), types.Int64Value(sizeGB), types.BoolValue(gvnic)
	return m
}

// gcloudDiskBodies are gcloud 528's bodies for the tutorial's two commands with --disk-size=200 --enable-gvnic, and
// on plan B --disk-type=hyperdisk-balanced too (v6e's default, which the provider leaves out); captured on loopback.
var gcloudDiskBodies = map[string]string{
	"on-demand-pool": `{"nodePool": {"autoscaling": {"enabled": true, "maxNodeCount": 4, "minNodeCount": 0}, "config": {"diskSizeGb": 200, "gvnic": {"enabled": true}, "machineType": "ct6e-standard-4t", "oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write", "https://www.googleapis.com/auth/monitoring", "https://www.googleapis.com/auth/service.management.readonly", "https://www.googleapis.com/auth/servicecontrol", "https://www.googleapis.com/auth/trace.append"], "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"}}, "initialNodeCount": 0, "management": {"autoRepair": true, "autoUpgrade": true}, "name": "on-demand-pool", "placementPolicy": {"tpuTopology": "4x4"}, "upgradeSettings": {"maxSurge": 1}}}`,
	"dws-pool":       `{"nodePool": {"autoscaling": {"enabled": true, "maxNodeCount": 4, "minNodeCount": 0}, "config": {"diskSizeGb": 200, "diskType": "hyperdisk-balanced", "flexStart": true, "gvnic": {"enabled": true}, "machineType": "ct6e-standard-4t", "oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write", "https://www.googleapis.com/auth/monitoring", "https://www.googleapis.com/auth/service.management.readonly", "https://www.googleapis.com/auth/servicecontrol", "https://www.googleapis.com/auth/trace.append"]}, "initialNodeCount": 0, "management": {"autoRepair": true, "autoUpgrade": true}, "name": "dws-pool", "placementPolicy": {"tpuTopology": "4x4"}, "queuedProvisioning": {"enabled": true}, "upgradeSettings": {"maxSurge": 1}}}`,
}

func TestExpandDiskMatchesGcloud(t *testing.T) {
	t.Parallel()
	m := withDisk(tutorialModel(), "hyperdisk-balanced", 200, true)
	gcloud := func(name string) *containerpb.NodePool {
		req := &containerpb.CreateNodePoolRequest{}
		if err := protojson.Unmarshal([]byte(gcloudDiskBodies[name]), req); err != nil {
			t.Fatal(err)
		}
		return req.GetNodePool()
	}
	got := expandNodePool(onDemandRole, poolModel{Name: types.StringValue("on-demand-pool"), ReservationAffinity: types.StringValue("none")}, m)
	if d := cmp.Diff(gcloud("on-demand-pool"), got, protocmp.Transform()); d != "" {
		t.Errorf("on_demand: request differs from gcloud's (-gcloud +provider):\n%s", d)
	}
	// Plan B: the disk type gcloud names is the one GKE defaults to, so the pools GKE makes of both are equal.
	got = expandNodePool(flexStartRole, poolModel{Name: types.StringValue("dws-pool"), Provisioning: types.StringValue(provisioningFlexStart)}, m)
	if d := cmp.Diff(gkedrift.Made(gcloud("dws-pool")), gkedrift.Made(got), protocmp.Transform()); d != "" {
		t.Errorf("flex_start: GKE makes another pool of the provider's request than of gcloud's (-gcloud +provider):\n%s", d)
	}
}

func TestReadDisk(t *testing.T) {
	t.Parallel()
	cfg := &containerpb.NodeConfig{MachineType: "ct6e-standard-4t", DiskType: "hyperdisk-balanced", DiskSizeGb: 100}
	// An import, or a state from before the attributes: read what GKE has.
	st := tutorialModel()
	was := st.poolPairModel
	readDisk(&was, &st.poolPairModel, cfg)
	if got := [3]string{st.DiskType.String(), st.DiskSizeGB.String(), st.Gvnic.String()}; got != [3]string{`"hyperdisk-balanced"`, "100", "false"} {
		t.Errorf("from no state: read %v", got)
	}
	// Changed by hand: read the live values.
	was = st.poolPairModel
	readDisk(&was, &st.poolPairModel, &containerpb.NodeConfig{DiskType: "hyperdisk-balanced", DiskSizeGb: 300, Gvnic: &containerpb.VirtualNIC{Enabled: true}})
	if st.DiskSizeGB.ValueInt64() != 300 || !st.Gvnic.ValueBool() {
		t.Errorf("changed by hand: read size %s, gvnic %s", st.DiskSizeGB, st.Gvnic)
	}
}

func TestExpandNodeSettingsMatchGcloud(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		role poolRole
		pool poolModel
		m    *tpuPoolPairModel
	}{
		{onDemandRole, poolModel{Name: types.StringValue("on-demand-pool"), ReservationAffinity: types.StringValue("none")}, nodeSettingsModel()},
		{flexStartRole, poolModel{Name: types.StringValue("dws-pool"), Provisioning: types.StringValue(provisioningFlexStart)},
			nodeSettingsModel("https://www.googleapis.com/auth/cloud-platform")},
	} {
		want := &containerpb.CreateNodePoolRequest{}
		if err := protojson.Unmarshal([]byte(gcloudNodeBodies[tc.pool.Name.ValueString()]), want); err != nil {
			t.Fatal(err)
		}
		got := expandNodePool(tc.role, tc.pool, tc.m)
		if diff := cmp.Diff(want.GetNodePool(), got, protocmp.Transform()); diff != "" {
			t.Errorf("%s: request differs from gcloud's (-gcloud +provider):\n%s", tc.role.attr, diff)
		}
		// Read gives back what the configuration said, and the defaults (unset) as unset.
		st := nodeSettingsModel()
		st.OauthScopes, st.Drift = tc.m.OauthScopes, types.ListNull(types.StringType)
		was := st.poolPairModel
		flattenNodeSettings(&was, &st.poolPairModel, got, true)
		if d := cmp.Diff(was, st.poolPairModel); d != "" {
			t.Errorf("%s: reading the pool back changes the settings:\n%s", tc.role.attr, d)
		}
	}
}

// After an import, a pool recreated by hand with another service account or scopes does not change the attributes:
// drift names that pool, and the apply recreates it alone instead of replacing the pair.
func TestIdentityReadOnImportOnly(t *testing.T) {
	t.Parallel()
	np := expandNodePool(onDemandRole, poolModel{Name: types.StringValue("od"), ReservationAffinity: types.StringValue("none")}, nodeSettingsModel())
	st := tutorialModel()
	st.ServiceAccount, st.OauthScopes = types.StringNull(), types.SetNull(types.StringType)
	was := st.poolPairModel
	flattenNodeSettings(&was, &st.poolPairModel, np, false)
	if !st.ServiceAccount.IsNull() || !st.OauthScopes.IsNull() {
		t.Errorf("refresh read the identity: service account %s, scopes %s", st.ServiceAccount, st.OauthScopes)
	}
	flattenNodeSettings(&was, &st.poolPairModel, np, true)
	if st.ServiceAccount.ValueString() != "tpu-nodes@dwsfallback-local.iam.gserviceaccount.com" || !st.OauthScopes.IsNull() {
		t.Errorf("import: service account %s, scopes %s; want the pool's account and its default scopes (unset)", st.ServiceAccount, st.OauthScopes)
	}
}
