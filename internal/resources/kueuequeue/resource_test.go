package kueuequeue

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

func TestRecordedSpellings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		annotations map[string]string
		want        quotaSpellings
	}{
		{name: "none", want: nil},
		{name: "kubectl last-applied, numbers and strings", annotations: map[string]string{corev1.LastAppliedConfigAnnotation: `{"spec":{"resourceGroups":[{"flavors":[{"name":"dws","resources":[{"name":"cpu","nominalQuota":1000000000},{"name":"memory","nominalQuota":"1000000000Gi"}]}]}]}}`},
			want: quotaSpellings{"dws": {"cpu": "1000000000", "memory": "1000000000Gi"}}},
		{name: "the provider's own wins", annotations: map[string]string{quotaSpellingAnnotation: `{"dws":{"cpu":"1e9"}}`, corev1.LastAppliedConfigAnnotation: `{}`},
			want: quotaSpellings{"dws": {"cpu": "1e9"}}},
		{name: "garbage", annotations: map[string]string{corev1.LastAppliedConfigAnnotation: `{not json`}, want: nil},
	}
	for _, tc := range cases {
		got := recordedSpellings(&kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Annotations: tc.annotations}})
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestRemovedObjects(t *testing.T) {
	t.Parallel()
	plan := &kueueQueueModel{Name: types.StringValue("cq"), Flavors: []flavorModel{{Name: types.StringValue("on-demand")}}}
	before := queueObjectNames{ClusterQueue: "cq", Flavors: []string{"on-demand", "dws"}, Checks: []string{"dws-prov"},
		Configs: []string{"dws-config"}, LocalQueues: []string{"default/user-queue"}}
	want := queueObjectNames{Flavors: []string{"dws"}, Checks: []string{"dws-prov"}, Configs: []string{"dws-config"}, LocalQueues: []string{"default/user-queue"}}
	if diff := cmp.Diff(want, removedObjects(before, plan)); diff != "" {
		t.Errorf("removedObjects (-want +got):\n%s", diff)
	}
	merged := queueObjectNames{Flavors: []string{"a"}}.union(queueObjectNames{ClusterQueue: "cq", Flavors: []string{"b", "a"}})
	if diff := cmp.Diff(queueObjectNames{ClusterQueue: "cq", Flavors: []string{"a", "b"}}, merged); diff != "" {
		t.Errorf("union (-want +got):\n%s", diff)
	}
}

func TestResourceOrder(t *testing.T) {
	t.Parallel()
	got := resourceOrder(map[string]string{"google.com/tpu": "", "memory": "", "cpu": "", "ephemeral-storage": "", "a.io/x": ""})
	if diff := cmp.Diff([]string{"cpu", "memory", "ephemeral-storage", "a.io/x", "google.com/tpu"}, got); diff != "" {
		t.Errorf("resourceOrder (-want +got):\n%s", diff)
	}
}
