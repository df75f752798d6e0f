package provider

import (
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
)

func TestWarnRecreated(t *testing.T) {
	cases := []struct {
		name     string
		drift    []string
		replaced map[string]bool
		want     []string
	}{
		{"none", nil, nil, nil},
		{"in place only", []string{"NodePool/od .autoscaling.maxNodeCount", "NodePool/od .config.labels", "NodePool/dws .management.autoRepair"}, nil, nil},
		{"one pool recreated", []string{"NodePool/od .autoscaling.maxNodeCount", "NodePool/dws .config.oauthScopes", "NodePool/dws .config.flexStart"},
			nil, []string{"Node pool dws will be replaced"}},
		{"both, in drift's order", []string{"NodePool/dws .config.oauthScopes", "NodePool/od .config.reservationAffinity.consumeReservationType"},
			nil, []string{"Node pool dws will be replaced", "Node pool od will be replaced"}},
		{"not a pool", []string{"ClusterQueue/q .spec.stopPolicy"}, nil, nil},
		{"GPUs of plan B", []string{"NodePool/dws .config.accelerators"}, nil, []string{"Node pool dws will be replaced"}},
		{"already warned as replaced", []string{"NodePool/dws .config.flexStart"}, map[string]bool{"dws": true}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var diags diag.Diagnostics
			warnRecreated(tfdrift.List(c.drift), c.replaced, &diags)
			var got []string
			for _, d := range diags {
				got = append(got, d.Summary())
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGKEMakes(t *testing.T) {
	flex := true
	surge := &containerpb.NodePool_UpgradeSettings{MaxSurge: 1}
	surgeStrategy := containerpb.NodePoolUpdateStrategy_SURGE
	withStrategy := &containerpb.NodePool_UpgradeSettings{MaxSurge: 1, Strategy: &surgeStrategy}
	for _, c := range []struct {
		name string
		np   *containerpb.NodePool
		want *containerpb.NodePool_UpgradeSettings
	}{
		{"on-demand: surge, GKE's default strategy", &containerpb.NodePool{Config: &containerpb.NodeConfig{}, UpgradeSettings: surge}, withStrategy},
		{"flex-start: GKE's own", &containerpb.NodePool{Config: &containerpb.NodeConfig{FlexStart: &flex}, UpgradeSettings: surge}, nil},
		{"queued: GKE's own", &containerpb.NodePool{Config: &containerpb.NodeConfig{}, QueuedProvisioning: &containerpb.NodePool_QueuedProvisioning{Enabled: true}, UpgradeSettings: surge}, nil},
	} {
		if diff := cmp.Diff(c.want, gkeMakes(c.np).GetUpgradeSettings(), protocmp.Transform()); diff != "" {
			t.Errorf("%s: upgrade settings (-want +got):\n%s", c.name, diff)
		}
	}
	if surge.Strategy != nil {
		t.Error("gkeMakes changed the request it was given")
	}
}
