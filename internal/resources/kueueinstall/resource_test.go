//go:build !nohelm

package kueueinstall

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	kueuefake "sigs.k8s.io/kueue/client-go/clientset/versioned/fake"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

func TestKueueInUse(t *testing.T) {
	t.Parallel()
	empty := &kube.Clients{Kueue: kueuefake.NewSimpleClientset(), Host: "https://k"}
	if got, err := kueueInUse(context.Background(), empty); err != nil || got != "" {
		t.Errorf("no queues: kueueInUse = %q, %v; want nothing in use", got, err)
	}
	used := &kube.Clients{Host: "https://k", Kueue: kueuefake.NewSimpleClientset(
		utiltesting.MakeClusterQueue("team-a").Obj(),
		utiltesting.MakeWorkload("job-1", "default").Obj(),
	)}
	got, err := kueueInUse(context.Background(), used)
	if err != nil || !strings.Contains(got, "1 ClusterQueue(s) (team-a) and 1 workload(s)") {
		t.Errorf("kueueInUse = %q, %v; want team-a and one workload named", got, err)
	}
}

func TestReadValues(t *testing.T) {
	t.Parallel()
	gates := map[string]any{"featureGates": []any{map[string]any{"name": "ElasticJobsViaWorkloadSlices", "enabled": true}}}
	tests := []struct {
		name   string
		prior  types.String
		config map[string]any
		want   types.String
	}{
		{"none set, gates only live", types.StringNull(), map[string]any{"controllerManager": gates}, types.StringNull()},
		{"imported without values", types.StringNull(), nil, types.StringNull()},
		{"same values, own spelling kept", types.StringValue("controllerManager:\n  replicas: 2\n"),
			map[string]any{"controllerManager": map[string]any{"replicas": float64(2), "featureGates": []any{}}},
			types.StringValue("controllerManager:\n  replicas: 2\n")},
		{"gates in values are feature_gates'", types.StringValue("controllerManager:\n  featureGates: []\n"),
			map[string]any{"controllerManager": gates}, types.StringValue("controllerManager:\n  featureGates: []\n")},
		{"set by hand", types.StringNull(),
			map[string]any{"controllerManager": map[string]any{"replicas": 2, "featureGates": []any{}}},
			types.StringValue("controllerManager:\n  replicas: 2\n")},
		{"changed by hand", types.StringValue("enablePrometheus: true\n"),
			map[string]any{"enablePrometheus": false},
			types.StringValue("enablePrometheus: false\n")},
		{"removed by hand", types.StringValue("enablePrometheus: true\n"),
			map[string]any{"controllerManager": gates}, types.StringNull()},
		{"unreadable values left to ModifyPlan", types.StringValue(": ["),
			map[string]any{"enablePrometheus": true}, types.StringValue(": [")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := readValues(tc.prior, tc.config); !got.Equal(tc.want) {
				t.Errorf("readValues = %s, want %s", got, tc.want)
			}
		})
	}
}
