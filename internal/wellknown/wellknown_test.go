package wellknown

import (
	"strings"
	"testing"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueconst "sigs.k8s.io/kueue/pkg/constants"
	kueuejobs "sigs.k8s.io/kueue/pkg/controller/constants"
)

// TestKueueNames: Kueue's names as Kueue's own packages spell them. The elastic-job annotation's package
// (pkg/workloadslicing) pulls in Kueue's scheduler, so it is checked against the API's scheduling gate of the same
// name instead; KubeRay's label is in its controllers, not checked here.
func TestKueueNames(t *testing.T) {
	for _, tc := range []struct{ ours, kueues string }{
		{QueueNameLabel, kueuejobs.QueueLabel},
		{JobUIDLabel, kueuejobs.JobUIDLabel},
		{PodSetLabel, kueueconst.PodSetLabel},
		{LocalQueueLabel, kueueconst.LocalQueueLabel},
		{ClusterQueueLabel, kueueconst.ClusterQueueLabel},
		{ProvisioningRequestController, kueue.ProvisioningRequestControllerName},
		{ElasticJobAnnotation, kueue.ElasticJobSchedulingGate},
	} {
		if tc.ours != tc.kueues {
			t.Errorf("%q is %q in Kueue", tc.ours, tc.kueues)
		}
	}
}

func TestInDomain(t *testing.T) {
	for key, want := range map[string]bool{
		"ray.io/cluster": true,
		"x.ray.io/y":     true,
		"xray.io/team":   false,
		"array.io/x":     false,
		"team":           false,
		"ray.io":         false,
		"provreq.kueue.x-k8s.io/maxRunDurationSeconds": true,
		"kueue.x-k8s.io/queue-name":                    true,
		"example.com/kueue.x-k8s.io":                   false,
	} {
		for _, d := range []string{RayDomain, KueueDomain} {
			if got := InDomain(key, d); got != (want && strings.Contains(key, d)) {
				t.Errorf("InDomain(%q, %q) = %v", key, d, got)
			}
		}
	}
}
