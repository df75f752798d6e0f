package gkedrift

import (
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"
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

// A blue-green setting that one side leaves out is drift, as GKE replaces upgradeSettings whole; blue-green settings
// beside another strategy are not.
func TestPoolDiffBlueGreen(t *testing.T) {
	blueGreen, surge := containerpb.NodePoolUpdateStrategy_BLUE_GREEN.Enum(), containerpb.NodePoolUpdateStrategy_SURGE.Enum()
	settings := func(soak int64, policy *containerpb.BlueGreenSettings_StandardRolloutPolicy) *containerpb.BlueGreenSettings {
		s := &containerpb.BlueGreenSettings{}
		if soak > 0 {
			s.NodePoolSoakDuration = durationpb.New(time.Duration(soak) * time.Second)
		}
		if policy != nil {
			s.RolloutPolicy = &containerpb.BlueGreenSettings_StandardRolloutPolicy_{StandardRolloutPolicy: policy}
		}
		return s
	}
	share := &containerpb.BlueGreenSettings_StandardRolloutPolicy{
		UpdateBatchSize: &containerpb.BlueGreenSettings_StandardRolloutPolicy_BatchPercentage{BatchPercentage: 0.5}}
	count := &containerpb.BlueGreenSettings_StandardRolloutPolicy{
		UpdateBatchSize: &containerpb.BlueGreenSettings_StandardRolloutPolicy_BatchNodeCount{BatchNodeCount: 1}}
	pool := func(strategy *containerpb.NodePoolUpdateStrategy, s *containerpb.BlueGreenSettings) *containerpb.NodePool {
		return &containerpb.NodePool{Config: &containerpb.NodeConfig{}, UpgradeSettings: &containerpb.NodePool_UpgradeSettings{MaxSurge: 1, Strategy: strategy, BlueGreenSettings: s}}
	}
	for _, c := range []struct {
		name       string
		want, have *containerpb.NodePool
		diff       []string
	}{
		{"the same", pool(blueGreen, settings(600, share)), pool(blueGreen, settings(600, share)), nil},
		{"the soak taken out", pool(blueGreen, settings(0, share)), pool(blueGreen, settings(600, share)),
			[]string{"upgradeSettings.blueGreenSettings.nodePoolSoakDuration"}},
		{"everything taken out", pool(blueGreen, nil), pool(blueGreen, settings(0, count)),
			[]string{"upgradeSettings.blueGreenSettings.standardRolloutPolicy.batchNodeCount"}},
		{"nothing asked, nothing kept", pool(blueGreen, nil), pool(blueGreen, nil), nil},
		{"old settings beside surge", pool(surge, nil), pool(surge, settings(600, share)), nil},
		// The settings no longer count either.
		{"back on surge by hand", pool(blueGreen, nil), pool(surge, settings(600, share)), []string{"upgradeSettings.blueGreenSettings", "upgradeSettings.strategy"}},
	} {
		if diff := cmp.Diff(c.diff, PoolDiff(c.want, c.have)); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", c.name, diff)
		}
	}
}
