package gkeemu

import (
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
)

func TestCheckSurge(t *testing.T) {
	t.Parallel()
	strategy := func(s containerpb.NodePoolUpdateStrategy) *containerpb.NodePoolUpdateStrategy { return &s }
	for _, tc := range []struct {
		name string
		u    *containerpb.NodePool_UpgradeSettings
		ok   bool
	}{
		{"none asked", nil, true},
		{"gcloud's", &containerpb.NodePool_UpgradeSettings{MaxSurge: 1}, true},
		{"one unavailable", &containerpb.NodePool_UpgradeSettings{MaxUnavailable: 1}, true},
		{"zero and zero", &containerpb.NodePool_UpgradeSettings{}, false},
		{"zero and zero, surge named", &containerpb.NodePool_UpgradeSettings{Strategy: strategy(containerpb.NodePoolUpdateStrategy_SURGE)}, false},
		{"blue-green", &containerpb.NodePool_UpgradeSettings{Strategy: strategy(containerpb.NodePoolUpdateStrategy_BLUE_GREEN)}, true},
		{"short-lived", &containerpb.NodePool_UpgradeSettings{Strategy: strategy(containerpb.NodePoolUpdateStrategy_SHORT_LIVED)}, true},
	} {
		if got := checkSurge(tc.u) == nil; got != tc.ok {
			t.Errorf("%s: accepted %v, want %v", tc.name, got, tc.ok)
		}
	}
}

func TestCheckBlueGreen(t *testing.T) {
	t.Parallel()
	blueGreen := containerpb.NodePoolUpdateStrategy_BLUE_GREEN.Enum()
	share := func(f float32) *containerpb.BlueGreenSettings {
		return &containerpb.BlueGreenSettings{RolloutPolicy: &containerpb.BlueGreenSettings_StandardRolloutPolicy_{
			StandardRolloutPolicy: &containerpb.BlueGreenSettings_StandardRolloutPolicy{
				UpdateBatchSize: &containerpb.BlueGreenSettings_StandardRolloutPolicy_BatchPercentage{BatchPercentage: f}}}}
	}
	gpu := &containerpb.NodePool{Name: "gpu", Config: &containerpb.NodeConfig{MachineType: "g2-standard-4"}}
	singleHost := &containerpb.NodePool{Name: "v6e-1", Config: &containerpb.NodeConfig{MachineType: "ct6e-standard-4t"},
		PlacementPolicy: &containerpb.NodePool_PlacementPolicy{TpuTopology: "2x2"}}
	multiHost := &containerpb.NodePool{Name: "v6e-16", Config: &containerpb.NodeConfig{MachineType: "ct6e-standard-4t"},
		PlacementPolicy: &containerpb.NodePool_PlacementPolicy{TpuTopology: "4x4"}}
	for _, tc := range []struct {
		name string
		np   *containerpb.NodePool
		u    *containerpb.NodePool_UpgradeSettings
		ok   bool
	}{
		{"surge on a slice", multiHost, &containerpb.NodePool_UpgradeSettings{MaxSurge: 1}, true},
		{"blue-green, GPUs", gpu, &containerpb.NodePool_UpgradeSettings{Strategy: blueGreen}, true},
		{"blue-green, a single-host slice", singleHost, &containerpb.NodePool_UpgradeSettings{Strategy: blueGreen}, true},
		{"blue-green, a multi-host slice", multiHost, &containerpb.NodePool_UpgradeSettings{Strategy: blueGreen}, false},
		{"blue-green, a TPU7x slice placed by a workload policy", &containerpb.NodePool{Name: "tpu7x", Config: &containerpb.NodeConfig{MachineType: "tpu7x-standard-4t"},
			PlacementPolicy: &containerpb.NodePool_PlacementPolicy{TpuTopology: "2x2x2", PolicyName: "wp"}}, &containerpb.NodePool_UpgradeSettings{Strategy: blueGreen}, true},
		{"a quarter per batch", gpu, &containerpb.NodePool_UpgradeSettings{Strategy: blueGreen, BlueGreenSettings: share(0.25)}, true},
		{"all per batch", gpu, &containerpb.NodePool_UpgradeSettings{Strategy: blueGreen, BlueGreenSettings: share(1)}, true},
		{"none per batch", gpu, &containerpb.NodePool_UpgradeSettings{Strategy: blueGreen, BlueGreenSettings: share(0)}, false},
		{"more than all", gpu, &containerpb.NodePool_UpgradeSettings{Strategy: blueGreen, BlueGreenSettings: share(1.5)}, false},
	} {
		if got := checkBlueGreen(tc.np, tc.u) == nil; got != tc.ok {
			t.Errorf("%s: accepted %v, want %v", tc.name, got, tc.ok)
		}
	}
}
