package gkedrift

import (
	"slices"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

func pool() *containerpb.NodePool {
	flex := true
	return &containerpb.NodePool{
		Name:            "dws-pool",
		Autoscaling:     &containerpb.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 4},
		Config:          &containerpb.NodeConfig{MachineType: "ct6e-standard-4t", FlexStart: &flex, OauthScopes: []string{"a", "b"}, Labels: map[string]string{"k": "v"}},
		PlacementPolicy: &containerpb.NodePool_PlacementPolicy{TpuTopology: "4x4"},
	}
}

func TestDiff(t *testing.T) {
	cases := []struct {
		name string
		edit func(*containerpb.NodePool)
		want []string
	}{
		{"same", func(*containerpb.NodePool) {}, nil},
		{"what GKE fills is not compared", func(np *containerpb.NodePool) {
			np.Status, np.Config.DiskSizeGb = containerpb.NodePool_RUNNING, 100
			np.Autoscaling.LocationPolicy = containerpb.NodePoolAutoscaling_ANY
			np.UpgradeSettings = &containerpb.NodePool_UpgradeSettings{MaxSurge: 1}
		}, nil},
		{"scalar", func(np *containerpb.NodePool) { np.Config.MachineType = "ct5p-hightpu-4t" }, []string{"config.machineType"}},
		{"scalar set to its zero", func(np *containerpb.NodePool) { np.Autoscaling.MaxNodeCount = 0 }, []string{"autoscaling.maxNodeCount"}},
		{"optional false", func(np *containerpb.NodePool) { f := false; np.Config.FlexStart = &f }, []string{"config.flexStart"}},
		{"optional unset", func(np *containerpb.NodePool) { np.Config.FlexStart = nil }, []string{"config.flexStart"}},
		{"message removed", func(np *containerpb.NodePool) { np.PlacementPolicy = nil }, []string{"placementPolicy"}},
		{"list item added", func(np *containerpb.NodePool) { np.Config.OauthScopes = append(np.Config.OauthScopes, "c") }, []string{"config.oauthScopes"}},
		{"list reordered", func(np *containerpb.NodePool) { np.Config.OauthScopes = []string{"b", "a"} }, []string{"config.oauthScopes"}},
		{"map key added", func(np *containerpb.NodePool) { np.Config.Labels["x"] = "y" }, []string{"config.labels"}},
		{"map value changed", func(np *containerpb.NodePool) { np.Config.Labels["k"] = "w" }, []string{"config.labels"}},
		{"two at once", func(np *containerpb.NodePool) {
			np.Name, np.PlacementPolicy.TpuTopology = "other", "2x4"
		}, []string{"name", "placementPolicy.tpuTopology"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			have := proto.Clone(pool()).(*containerpb.NodePool)
			c.edit(have)
			if diff := cmp.Diff(c.want, Diff(pool(), have)); diff != "" {
				t.Errorf("Diff (-want +got):\n%s", diff)
			}
		})
	}
}

// A field the request means at zero (auto-repair off) is compared when named, and only then.
func TestDiffZeros(t *testing.T) {
	want := &containerpb.NodePool{Management: &containerpb.NodeManagement{AutoUpgrade: true}}
	have := &containerpb.NodePool{Management: &containerpb.NodeManagement{AutoUpgrade: true, AutoRepair: true}}
	if d := Diff(want, have); d != nil {
		t.Errorf("without zeros: %v, want nothing", d)
	}
	if diff := cmp.Diff([]string{"management.autoRepair"}, Diff(want, have, "management.autoRepair")); diff != "" {
		t.Errorf("with zeros (-want +got):\n%s", diff)
	}
	if d := Diff(want, want, "management.autoRepair", "autoscaling.minNodeCount"); d != nil {
		t.Errorf("same, with zeros: %v", d)
	}
	if diff := cmp.Diff([]string{"management.autoRepair", "management.autoUpgrade"}, Leaves(want, "management.autoRepair")); diff != "" {
		t.Errorf("Leaves with zeros (-want +got):\n%s", diff)
	}
}

func TestLeaves(t *testing.T) {
	want := []string{"autoscaling.enabled", "autoscaling.maxNodeCount", "config.flexStart", "config.labels", "config.machineType",
		"config.oauthScopes", "name", "placementPolicy.tpuTopology"}
	if diff := cmp.Diff(want, Leaves(pool())); diff != "" {
		t.Errorf("Leaves (-want +got):\n%s", diff)
	}
}

// A Duration is one value in GKE's JSON, and so one field of the drift: config.maxRunDuration, not its seconds.
func TestDiffDurationWhole(t *testing.T) {
	t.Parallel()
	want := &containerpb.NodePool{Config: &containerpb.NodeConfig{MaxRunDuration: durationpb.New(time.Hour)}}
	have := &containerpb.NodePool{Config: &containerpb.NodeConfig{MaxRunDuration: durationpb.New(2 * time.Hour)}}
	if got := Diff(want, have); !slices.Equal(got, []string{"config.maxRunDuration"}) {
		t.Errorf("Diff = %v, want [config.maxRunDuration]", got)
	}
	if got := Leaves(want); !slices.Equal(got, []string{"config.maxRunDuration"}) {
		t.Errorf("Leaves = %v, want [config.maxRunDuration]", got)
	}
}
