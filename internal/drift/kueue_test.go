package drift

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing/v1beta2"
)

func admitted(flavor string, updates ...kueue.PodSetUpdate) *kueue.Workload {
	f := kueue.ResourceFlavorReference(flavor)
	workers := utiltesting.MakePodSetAssignment("workers").Flavor("google.com/tpu", f).Flavor("cpu", f).Obj()
	return utiltesting.MakeWorkload("rayjob-1-abcde", "").Queue("user-queue").PodSets(*utiltesting.MakePodSet("workers", 4).Obj()).
		Admission(utiltesting.MakeAdmission("cluster-queue").PodSets(workers).Obj()).
		Condition(metav1.Condition{Type: kueue.WorkloadAdmitted, Status: metav1.ConditionTrue}).
		AdmissionCheck(kueue.AdmissionCheckState{Name: "dws-prov", PodSetUpdates: updates}).Obj()
}

var dwsFlavors = map[string]*kueue.ResourceFlavor{"dws": utiltesting.MakeResourceFlavor("dws").
	NodeLabel("cloud.google.com/gke-nodepool", "dws-pool").
	Toleration(corev1.Toleration{Key: "cloud.google.com/gke-queued", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}).Obj()}

func TestKueueAdded(t *testing.T) {
	wl := admitted("dws", kueue.PodSetUpdate{Name: "workers",
		Annotations:  map[string]string{"autoscaling.x-k8s.io/consume-provisioning-request": "pr-1"},
		NodeSelector: map[string]string{"cloud.google.com/gke-queued": "true"}})
	got := KueueAdded(wl, dwsFlavors)
	want := map[string]Added{"workers": {
		Labels: map[string]string{"kueue.x-k8s.io/podset": "workers", "kueue.x-k8s.io/local-queue-name": "user-queue",
			"kueue.x-k8s.io/cluster-queue-name": "cluster-queue"},
		Annotations: map[string]string{"autoscaling.x-k8s.io/consume-provisioning-request": "pr-1",
			"kueue.x-k8s.io/workload": "rayjob-1-abcde", "kueue.x-k8s.io/workload-slice-name": "rayjob-1-abcde"},
		NodeSelector: map[string]string{"cloud.google.com/gke-nodepool": "dws-pool", "cloud.google.com/gke-queued": "true"},
		Tolerations:  dwsFlavors["dws"].Spec.Tolerations,
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("KueueAdded (-want +got):\n%s", diff)
	}
	wl.Status.Conditions = nil
	if got := KueueAdded(wl, dwsFlavors); got != nil {
		t.Errorf("KueueAdded of a workload not admitted = %v, want nil: Kueue puts the templates back when it suspends", got)
	}
}

func TestSubtract(t *testing.T) {
	add := KueueAdded(admitted("dws"), dwsFlavors)["workers"]
	toleration := func(key string) map[string]any {
		return map[string]any{"key": key, "operator": "Exists", "effect": "NoSchedule"}
	}
	cases := map[string]struct {
		live, base, want map[string]any
	}{
		"what Kueue added goes": {
			live: map[string]any{"spec": map[string]any{
				"nodeSelector": map[string]any{"tpu": "v6e", "cloud.google.com/gke-nodepool": "dws-pool"},
				"tolerations":  []any{toleration("google.com/tpu"), toleration("cloud.google.com/gke-queued")},
			}},
			base: map[string]any{"spec": map[string]any{
				"nodeSelector": map[string]any{"tpu": "v6e"},
				"tolerations":  []any{toleration("google.com/tpu")},
			}},
			want: map[string]any{"spec": map[string]any{
				"nodeSelector": map[string]any{"tpu": "v6e"},
				"tolerations":  []any{toleration("google.com/tpu")},
			}},
		},
		"a key the write set itself stays": {
			live: map[string]any{"spec": map[string]any{"nodeSelector": map[string]any{"cloud.google.com/gke-nodepool": "dws-pool"},
				"tolerations": []any{toleration("cloud.google.com/gke-queued")}}},
			base: map[string]any{"spec": map[string]any{"nodeSelector": map[string]any{"cloud.google.com/gke-nodepool": "dws-pool"},
				"tolerations": []any{toleration("cloud.google.com/gke-queued")}}},
			want: map[string]any{"spec": map[string]any{"nodeSelector": map[string]any{"cloud.google.com/gke-nodepool": "dws-pool"},
				"tolerations": []any{toleration("cloud.google.com/gke-queued")}}},
		},
		"a hand-added toleration stays, to be seen": {
			live: map[string]any{"spec": map[string]any{"tolerations": []any{toleration("x"), toleration("cloud.google.com/gke-queued")}}},
			base: map[string]any{"spec": map[string]any{}},
			want: map[string]any{"spec": map[string]any{"tolerations": []any{toleration("x")}}},
		},
		"another value under Kueue's key stays": {
			live: map[string]any{"spec": map[string]any{"nodeSelector": map[string]any{"cloud.google.com/gke-nodepool": "other"}}},
			base: map[string]any{"spec": map[string]any{}},
			want: map[string]any{"spec": map[string]any{"nodeSelector": map[string]any{"cloud.google.com/gke-nodepool": "other"}}},
		},
		"maps and lists Kueue made go whole": {
			live: map[string]any{"spec": map[string]any{"nodeSelector": map[string]any{"cloud.google.com/gke-nodepool": "dws-pool"},
				"tolerations": []any{toleration("cloud.google.com/gke-queued")}}},
			base: map[string]any{"spec": map[string]any{}},
			want: map[string]any{"spec": map[string]any{}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if err := Subtract(tc.live, tc.base, add); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, tc.live); diff != "" {
				t.Errorf("Subtract (-want +got):\n%s", diff)
			}
		})
	}
}
