package poolpair

import (
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

// gcloudPool is the pool gcloud's body of that name creates, as the one found under the name on an apply.
func gcloudPool(t *testing.T, body string) *containerpb.NodePool {
	t.Helper()
	req := &containerpb.CreateNodePoolRequest{}
	if err := protojson.Unmarshal([]byte(body), req); err != nil {
		t.Fatal(err)
	}
	return req.GetNodePool()
}

// TestIncompatibleRefusesWhatOnlyCreationSets: a pool found under the name is adopted only when nothing GKE sets
// at creation alone differs from what this resource would create; the rest adopt() sets in place.
func TestIncompatibleRefusesWhatOnlyCreationSets(t *testing.T) {
	t.Parallel()
	m := tutorialModel()
	onDemand := poolModel{Name: types.StringValue("on-demand-pool"), ReservationAffinity: types.StringValue("none")}
	flex := poolModel{Name: types.StringValue("dws-pool"), Provisioning: types.StringValue(provisioningFlexStart)}
	unqueued := poolModel{Name: types.StringValue("dws-pool"), Provisioning: types.StringValue(provisioningUnqueued)}
	for _, tc := range []struct {
		name string
		role poolRole
		pool poolModel
		edit func(*containerpb.NodePool)
		want string // part of the reason, "" to adopt
	}{
		{"gcloud's own on-demand pool", onDemandRole, onDemand, func(*containerpb.NodePool) {}, ""},
		{"gcloud's own dws pool", flexStartRole, flex, func(*containerpb.NodePool) {}, ""},
		{"service account \"default\" is the default", onDemandRole, onDemand, func(np *containerpb.NodePool) { np.Config.ServiceAccount = "default" }, ""},
		{"lifecycle and labels are set in place", onDemandRole, onDemand, func(np *containerpb.NodePool) {
			np.Management.AutoRepair, np.Config.Labels = false, map[string]string{"team": "a"}
		}, ""},
		{"a reservation", onDemandRole, onDemand, func(np *containerpb.NodePool) {
			np.Config.ReservationAffinity = &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_SPECIFIC_RESERVATION,
				Key: "compute.googleapis.com/reservation-name", Values: []string{"tpu-reservation"}}
		}, `has reservation affinity "specific" (reservation tpu-reservation), not "none"`},
		{"any reservation", onDemandRole, onDemand, func(np *containerpb.NodePool) { np.Config.ReservationAffinity = nil }, `has reservation affinity "any", not "none"`},
		{"another service account", flexStartRole, flex, func(np *containerpb.NodePool) { np.Config.ServiceAccount = "nodes@p.iam.gserviceaccount.com" },
			"runs as service account nodes@p.iam.gserviceaccount.com, not the Compute Engine default"},
		{"other scopes", onDemandRole, onDemand, func(np *containerpb.NodePool) {
			np.Config.OauthScopes = []string{"https://www.googleapis.com/auth/cloud-platform"}
		},
			"has OAuth scopes [https://www.googleapis.com/auth/cloud-platform]"},
		{"a run limit the configuration has not", flexStartRole, flex, func(np *containerpb.NodePool) { np.Config.MaxRunDuration = durationpb.New(86400e9) },
			"has run limit 24h0m0s"},
		{"plan B without an affinity when creation sends none", flexStartRole, unqueued, func(np *containerpb.NodePool) {
			np.QueuedProvisioning, np.Config.ReservationAffinity = nil, nil
		}, `has reservation affinity "any", not "none"`},
		{"plan B with the affinity creation sends", flexStartRole, unqueued, func(np *containerpb.NodePool) {
			np.QueuedProvisioning = nil
			np.Config.ReservationAffinity = &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_NO_RESERVATION}
		}, ""},
		{"another topology", onDemandRole, onDemand, func(np *containerpb.NodePool) { np.PlacementPolicy.TpuTopology = "2x4" }, `has TPU topology "2x4"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			have := proto.Clone(gcloudPool(t, gcloudBodies[tc.pool.Name.ValueString()])).(*containerpb.NodePool)
			tc.edit(have)
			got := incompatible(tc.role, m, have, expandNodePool(tc.role, tc.pool, m))
			if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
				t.Errorf("incompatible = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestIncompatibleGPUDriver(t *testing.T) {
	t.Parallel()
	m := gpuModel() // driver "latest"
	p := poolModel{Name: types.StringValue("od"), ReservationAffinity: types.StringValue("none")}
	for _, tc := range []struct {
		name   string
		driver *containerpb.GPUDriverInstallationConfig_GPUDriverVersion
		want   string
	}{
		{"the same driver", containerpb.GPUDriverInstallationConfig_LATEST.Enum(), ""},
		{"none named", nil, ""},
		{"another driver", containerpb.GPUDriverInstallationConfig_DEFAULT.Enum(), "has GPU driver version DEFAULT, not LATEST"},
	} {
		want := expandNodePool(onDemandRole, p, m)
		have := proto.Clone(want).(*containerpb.NodePool)
		have.Config.Accelerators[0].GpuDriverInstallationConfig = nil
		if tc.driver != nil {
			have.Config.Accelerators[0].GpuDriverInstallationConfig = &containerpb.GPUDriverInstallationConfig{GpuDriverVersion: tc.driver}
		}
		if got := incompatible(onDemandRole, m, have, want); (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: incompatible = %q, want %q", tc.name, got, tc.want)
		}
	}
}
