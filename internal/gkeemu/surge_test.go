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
