package poolpair

import (
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// TestClassSettingsKeepOtherLabels: joining or leaving a class changes only the class's label and taint.
func TestClassSettingsKeepOtherLabels(t *testing.T) {
	t.Parallel()
	other := &containerpb.NodeTaint{Key: "team", Value: "ml", Effect: containerpb.NodeTaint_NO_EXECUTE}
	np := &containerpb.NodePool{Config: &containerpb.NodeConfig{Labels: map[string]string{"team": "ml"}, Taints: []*containerpb.NodeTaint{other}}}
	labels, taints, changed := classSettings(np, "c")
	if !changed || labels["team"] != "ml" || labels[wellknown.ComputeClassLabel] != "c" || len(taints) != 2 {
		t.Errorf("joining: %v %v %v", labels, taints, changed)
	}
	np.Config.Labels, np.Config.Taints = labels, taints
	if _, _, changed := classSettings(np, "c"); changed {
		t.Error("a pool already in the class changes again")
	}
	labels, taints, changed = classSettings(np, "")
	if !changed || len(labels) != 1 || len(taints) != 1 || taints[0] != other {
		t.Errorf("leaving: %v %v %v", labels, taints, changed)
	}
}

// TestPoolClassSeesHalfJoinedPools: a pool whose class taint was removed or changed by hand reads as not in the class,
// so the plan shows it.
func TestPoolClassSeesHalfJoinedPools(t *testing.T) {
	t.Parallel()
	labels := map[string]string{wellknown.ComputeClassLabel: "c"}
	for _, tc := range []struct {
		name   string
		cfg    *containerpb.NodeConfig
		joined bool
	}{
		{"label and taint", &containerpb.NodeConfig{Labels: labels, Taints: []*containerpb.NodeTaint{gke.ClassTaint("c")}}, true},
		{"label alone", &containerpb.NodeConfig{Labels: labels}, false},
		{"taint of another class", &containerpb.NodeConfig{Labels: labels, Taints: []*containerpb.NodeTaint{gke.ClassTaint("d")}}, false},
		{"two class taints", &containerpb.NodeConfig{Labels: labels, Taints: []*containerpb.NodeTaint{gke.ClassTaint("c"), gke.ClassTaint("d")}}, false},
		{"taint alone", &containerpb.NodeConfig{Taints: []*containerpb.NodeTaint{gke.ClassTaint("c")}}, false},
	} {
		got := poolClass(&containerpb.NodePool{Config: tc.cfg})
		if got.Equal(types.StringValue("c")) != tc.joined || got.IsNull() {
			t.Errorf("%s: %v; joined = %v", tc.name, got, tc.joined)
		}
		if _, _, changed := classSettings(&containerpb.NodePool{Config: tc.cfg}, "c"); changed == tc.joined {
			t.Errorf("%s: the apply would change it: %v", tc.name, changed)
		}
	}
}
