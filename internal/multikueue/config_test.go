package multikueue

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueuefake "sigs.k8s.io/kueue/client-go/clientset/versioned/fake"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing/v1beta2"
)

// check is an AdmissionCheck of controller whose parameters name the MultiKueueConfig config.
func check(name, controller, config string) *kueue.AdmissionCheck {
	return utiltesting.MakeAdmissionCheck(name).ControllerName(controller).Parameters(kueue.GroupVersion.Group, "MultiKueueConfig", config).Obj()
}

func TestFindConfigCheck(t *testing.T) {
	t.Parallel()
	mk := kueue.MultiKueueControllerName
	for name, tc := range map[string]struct {
		objs []runtime.Object
		hint string
		want string
	}{
		"the config's name":               {[]runtime.Object{check("cfg", mk, "cfg")}, "", "cfg"},
		"the recorded name first":         {[]runtime.Object{check("cfg", mk, "cfg"), check("mine", mk, "cfg")}, "mine", "mine"},
		"Kueue's docs: named apart":       {[]runtime.Object{check("sample-multikueue", mk, "cfg")}, "", "sample-multikueue"},
		"another config's check":          {[]runtime.Object{check("cfg", mk, "other")}, "", ""},
		"another controller's check":      {[]runtime.Object{check("cfg", "kueue.x-k8s.io/provisioning-request", "cfg")}, "", ""},
		"recorded one gone, found by ref": {[]runtime.Object{check("b", mk, "cfg"), check("a", mk, "cfg")}, "gone", "a"},
		"none":                            {nil, "cfg", ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ac, err := FindConfigCheck(context.Background(), kueuefake.NewSimpleClientset(tc.objs...), "cfg", tc.hint)
			got := ""
			if ac != nil {
				got = ac.Name
			}
			if err != nil || got != tc.want {
				t.Errorf("FindConfigCheck = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestQueueCheck(t *testing.T) {
	t.Parallel()
	lq := utiltesting.MakeLocalQueue("user-queue", "default").ClusterQueue("cq").Obj()
	cq := func(checks ...kueue.AdmissionCheckReference) *kueue.ClusterQueue {
		q := utiltesting.MakeClusterQueue("cq")
		if len(checks) > 0 {
			q.AdmissionChecks(checks...)
		}
		return q.Obj()
	}
	mk, dws := check("mk", kueue.MultiKueueControllerName, "cfg"), check("dws", "kueue.x-k8s.io/provisioning-request", "")
	for name, tc := range map[string]struct {
		objs []runtime.Object
		want string
	}{
		"MultiKueue":        {[]runtime.Object{lq, cq("mk"), mk}, "mk"},
		"DWS only":          {[]runtime.Object{lq, cq("dws"), dws}, ""},
		"no checks":         {[]runtime.Object{lq, cq()}, ""},
		"check not made":    {[]runtime.Object{lq, cq("mk")}, ""},
		"no ClusterQueue":   {[]runtime.Object{lq}, ""},
		"no LocalQueue yet": {nil, ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := QueueCheck(context.Background(), kueuefake.NewSimpleClientset(tc.objs...), "default", "user-queue")
			if err != nil || got != tc.want {
				t.Errorf("QueueCheck = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// A check changed by hand to serve another config is not removed with this one.
func TestDeleteConfigKeepsOthersCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kq := kueuefake.NewSimpleClientset(check("mine", kueue.MultiKueueControllerName, "cfg"), check("moved", kueue.MultiKueueControllerName, "other"),
		utiltesting.MakeMultiKueueConfig("cfg").Obj())
	for _, c := range []string{"moved", "mine"} {
		if err := DeleteConfig(ctx, kq, "cfg", c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := kq.KueueV1beta2().AdmissionChecks().Get(ctx, "moved", metav1.GetOptions{}); err != nil {
		t.Errorf("the check serving another config was deleted: %v", err)
	}
	if ac, _ := FindCheck(ctx, kq, "mine"); ac != nil {
		t.Error("the config's own check is still there")
	}
}
