package gkedrift

import (
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
)

func TestMade(t *testing.T) {
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
		if diff := cmp.Diff(c.want, Made(c.np).GetUpgradeSettings(), protocmp.Transform()); diff != "" {
			t.Errorf("%s: upgrade settings (-want +got):\n%s", c.name, diff)
		}
	}
	if surge.Strategy != nil {
		t.Error("Made changed the request it was given")
	}
}
