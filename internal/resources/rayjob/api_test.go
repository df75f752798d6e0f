package rayjob

import (
	"context"
	"errors"
	"testing"
	"time"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kptr "k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// A job MultiKueue dispatched is counted where its pods are: on the worker the manager's Workload names. A worker that
// cannot be reached leaves the pods unknown and the read whole.
func TestReadProgressFollowsDispatch(t *testing.T) {
	t.Parallel()
	job := &rayv1.RayJob{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "default"}, Status: rayv1.RayJobStatus{RayClusterName: "j-rc"}}
	pod := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "j-rc-head"},
		Spec: corev1.PodSpec{NodeName: "n1", NodeSelector: map[string]string{wellknown.NodePoolLabel: "dws-pool"}}}
	manager, worker, down := &kube.Clients{Host: "https://manager"}, &kube.Clients{Host: "https://worker"}, &kube.Clients{Host: "https://down"}
	get := func(context.Context, *kube.Clients, string, string) (*rayv1.RayJob, error) { return job, nil }
	pods := func(_ context.Context, c *kube.Clients, _ *rayv1.RayJob) ([]corev1.Pod, error) {
		switch c {
		case worker:
			return []corev1.Pod{pod}, nil
		case down:
			return nil, errors.New("connection refused")
		}
		return nil, nil
	}
	for name, tc := range map[string]struct {
		cluster *string
		reach   func(context.Context, string) (*kube.Clients, error)
		pools   int
	}{
		"dispatched":        {kptr.To("w1"), func(_ context.Context, n string) (*kube.Clients, error) { return worker, nil }, 1},
		"worker unreached":  {kptr.To("w1"), func(context.Context, string) (*kube.Clients, error) { return nil, errors.New("refused") }, 0},
		"worker down":       {kptr.To("w1"), func(context.Context, string) (*kube.Clients, error) { return down, nil }, 0},
		"not dispatched":    {nil, func(context.Context, string) (*kube.Clients, error) { return worker, nil }, 0},
		"no way to workers": {kptr.To("w1"), nil, 0},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := *manager
			c.Worker = tc.reach
			wl := &kueue.Workload{Status: kueue.WorkloadStatus{ClusterName: tc.cluster}}
			p, err := readProgressWith(context.Background(), &c, "default", "j", get, pods,
				func(context.Context, *kube.Clients, *rayv1.RayJob) (*kueue.Workload, error) { return wl, nil })
			if err != nil {
				t.Fatal(err)
			}
			if got := len(nodeCounts(p.pods, p.nodePools).Elements()); got != tc.pools || p.wl != wl {
				t.Errorf("pools %d (want %d), workload kept %v", got, tc.pools, p.wl == wl)
			}
		})
	}
}

// An immutable ConfigMap keeps the job's files only when it holds the same names: an empty file renamed is another
// file, which the apply must write (a comparison that read a missing key as "" once called the two the same).
func TestKeepsFilesByName(t *testing.T) {
	t.Parallel()
	immutable := true
	live := &corev1.ConfigMap{Immutable: &immutable, Data: map[string]string{"a.py": ""}}
	if keepsFiles(live, &corev1.ConfigMap{Data: map[string]string{"b.py": ""}}) {
		t.Error("a.py kept for b.py")
	}
	if !keepsFiles(live, &corev1.ConfigMap{Data: map[string]string{"a.py": ""}}) {
		t.Error("the same files not kept")
	}
}

// A Workload Kueue took out of admission ends the wait at once, whichever step of Kueue's deactivation the read sees;
// quota in use or a check still pending does not.
func TestDeactivated(t *testing.T) {
	t.Parallel()
	check := func(state kueue.CheckState) kueue.AdmissionCheckState {
		return kueue.AdmissionCheckState{Name: "dws-prov", State: state, Message: "ProvisioningRequest failed"}
	}
	cond := func(typ, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: reason, Message: msg}
	}
	wl := func() *utiltesting.WorkloadWrapper { return utiltesting.MakeWorkload("rayjob-x-1", "default") }
	for _, tc := range []struct {
		name string
		wl   *kueue.Workload
		want string
	}{
		{"no Workload yet", nil, ""},
		{"check pending", wl().AdmissionCheck(check(kueue.CheckStatePending)).Obj(), ""},
		{"check to retry", wl().AdmissionCheck(check(kueue.CheckStateRetry)).Obj(), ""},
		{"check rejected", wl().AdmissionCheck(check(kueue.CheckStateRejected)).Obj(),
			"its admission check dws-prov was rejected (ProvisioningRequest failed)"},
		{"marked to deactivate", wl().AdmissionCheck(check(kueue.CheckStateRejected)).Condition(cond(kueue.WorkloadDeactivationTarget,
			kueue.WorkloadEvictedByAdmissionCheck, "Admission check(s): [dws-prov], were rejected")).Obj(),
			"its admission check dws-prov was rejected (ProvisioningRequest failed)"},
		{"marked, check not seen", wl().Condition(cond(kueue.WorkloadDeactivationTarget, kueue.WorkloadEvictedByAdmissionCheck,
			"Admission check(s): [dws-prov], were rejected")).Obj(),
			"its Workload is to be deactivated: Admission check(s): [dws-prov], were rejected"},
		// Kueue's last step: evicted with the cause in the reason, the checks reset to Pending.
		{"deactivated by Kueue", wl().Active(false).AdmissionCheck(check(kueue.CheckStatePending)).Condition(cond(kueue.WorkloadEvicted,
			kueue.WorkloadDeactivated+"DueTo"+kueue.WorkloadEvictedByAdmissionCheck,
			"The workload is deactivated due to Admission check(s): [dws-prov], were rejected")).Obj(),
			"its Workload is deactivated: The workload is deactivated due to Admission check(s): [dws-prov], were rejected"},
		{"set active again, still evicted", wl().Active(true).Condition(cond(kueue.WorkloadEvicted,
			kueue.WorkloadDeactivated+"DueTo"+kueue.WorkloadEvictedByAdmissionCheck, "The workload is deactivated due to ...")).Obj(), ""},
		{"deactivated by hand", wl().Active(false).Obj(), "its Workload is deactivated (spec.active is false)"},
	} {
		if got := deactivated(tc.wl); got != tc.want {
			t.Errorf("%s: deactivated() = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestInadmissible(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	pending := func(reason, msg string) *kueue.Workload {
		return utiltesting.MakeWorkload("rayjob-x-1", "default").Condition(metav1.Condition{Type: kueue.WorkloadQuotaReserved,
			Status: metav1.ConditionFalse, Reason: reason, Message: msg, LastTransitionTime: metav1.NewTime(since)}).Obj()
	}
	noQueue := pending(kueue.WorkloadInadmissible, "LocalQueue team-a doesn't exist")
	tooBig := pending("Pending", "couldn't assign flavors to pod set workers: insufficient quota for google.com/tpu in flavor dws, request > maximum capacity (64 > 16)")
	busy := pending("Pending", "couldn't assign flavors to pod set workers: insufficient unused quota for google.com/tpu in flavor dws, 16 more needed")
	graceEnds := since.Add(inadmissibleGrace)
	for _, tc := range []struct {
		name    string
		wl      *kueue.Workload
		now     time.Time
		wantWhy string
		wantDue time.Time
	}{
		{"no Workload yet", nil, since, "", time.Time{}},
		{"no LocalQueue, in its grace", noQueue, since.Add(time.Second), "", graceEnds},
		{"no LocalQueue, grace over", noQueue, graceEnds, "LocalQueue team-a doesn't exist", time.Time{}},
		{"above every flavor, in its grace", tooBig, since, "", graceEnds},
		{"above every flavor, grace over", tooBig, graceEnds.Add(time.Minute), tooBig.Status.Conditions[0].Message, time.Time{}},
		// Quota others hold comes back: no grace to wait out, no moment to look again at.
		{"quota in use", busy, graceEnds.Add(time.Minute), "", time.Time{}},
		{"quota in use, early", busy, since, "", time.Time{}},
	} {
		why, due := inadmissible(tc.wl, tc.now)
		if why != tc.wantWhy || !due.Equal(tc.wantDue) {
			t.Errorf("%s: inadmissible() = %q, %v; want %q, %v", tc.name, why, due, tc.wantWhy, tc.wantDue)
		}
	}
}
