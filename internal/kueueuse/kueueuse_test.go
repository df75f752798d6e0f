package kueueuse

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"
	kueuefake "sigs.k8s.io/kueue/client-go/clientset/versioned/fake"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

// clusterQueue is a ClusterQueue that names these flavors and checks.
func clusterQueue(name string, flavors []string, checks ...string) *kueue.ClusterQueue {
	var fs []kueue.FlavorQuotas
	for _, f := range flavors {
		fs = append(fs, *utiltesting.MakeFlavorQuotas(f).Obj())
	}
	cq := utiltesting.MakeClusterQueue(name).ResourceGroup(fs...)
	if len(checks) > 0 {
		var refs []kueue.AdmissionCheckReference
		for _, c := range checks {
			refs = append(refs, kueue.AdmissionCheckReference(c))
		}
		cq.AdmissionChecks(refs...)
	}
	return cq.Obj()
}

func dwsCheck(name, config string) *kueue.AdmissionCheck {
	return utiltesting.MakeAdmissionCheck(name).ControllerName("kueue.x-k8s.io/provisioning-request").
		Parameters("kueue.x-k8s.io", "ProvisioningRequestConfig", config).Obj()
}

func clients(objs ...runtime.Object) *kube.Clients {
	return &kube.Clients{Kueue: kueuefake.NewSimpleClientset(objs...), Host: "https://127.0.0.1:6443"}
}

func TestFindUsers(t *testing.T) {
	t.Parallel()
	c := clients(
		clusterQueue("team-a", []string{"on-demand", "dws"}, "dws-prov"),
		clusterQueue("team-b", []string{"dws"}, "dws-prov"),
		clusterQueue("self", []string{"on-demand", "dws", "mine"}, "dws-prov"),
		dwsCheck("dws-prov", "dws-config"),
	)
	u, err := FindUsers(context.Background(), c, "self")
	if err != nil {
		t.Fatal(err)
	}
	want := Users{
		"ResourceFlavor/on-demand":             {"team-a"},
		"ResourceFlavor/dws":                   {"team-a", "team-b"},
		"AdmissionCheck/dws-prov":              {"team-a", "team-b"},
		"ProvisioningRequestConfig/dws-config": {"team-a", "team-b"},
	}
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("FindUsers (-want +got):\n%s", diff)
	}
	out, kept := u.Unshared("ResourceFlavor", []string{"on-demand", "mine"})
	if diff := cmp.Diff([]string{"mine"}, out); diff != "" {
		t.Errorf("Unshared left (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"ResourceFlavor on-demand (used by ClusterQueue team-a)"}, kept); diff != "" {
		t.Errorf("Unshared kept (-want +got):\n%s", diff)
	}
}

func TestRefuseRedeclared(t *testing.T) {
	t.Parallel()
	flavor := utiltesting.MakeResourceFlavor("dws").NodeLabel("cloud.google.com/gke-nodepool", "dws-pool").Obj()
	c := clients(clusterQueue("team-a", []string{"dws"}), flavor)
	same := []Spec{{Kind: "ResourceFlavor", Name: "dws", Words: FlavorWords(map[string]string{"cloud.google.com/gke-nodepool": "dws-pool"})}}
	if err := RefuseRedeclared(context.Background(), c, "self", same, nil, Users{"ResourceFlavor/dws": {"team-a"}}); err != nil {
		t.Errorf("an equal declaration was refused: %v", err)
	}
	other := []Spec{{Kind: "ResourceFlavor", Name: "dws", Words: FlavorWords(map[string]string{"cloud.google.com/gke-nodepool": "other"})}}
	err := RefuseRedeclared(context.Background(), c, "self", other, nil, Users{"ResourceFlavor/dws": {"team-a"}})
	if err == nil || !strings.Contains(err.Error(), "ResourceFlavor dws is declared twice with different specs: ClusterQueue team-a uses it "+
		"with node labels {cloud.google.com/gke-nodepool=dws-pool}, and this queue (ClusterQueue self) declares node labels "+
		"{cloud.google.com/gke-nodepool=other}") {
		t.Errorf("a different declaration: %v", err)
	}
	mine := map[string]string{"ResourceFlavor/dws": FlavorWords(flavor.Spec.NodeLabels)}
	if err := RefuseRedeclared(context.Background(), c, "self", other, mine, Users{"ResourceFlavor/dws": {"team-a"}}); err != nil {
		t.Errorf("a live spec this queue applied itself was called a clash: %v", err)
	}
	if err := RefuseRedeclared(context.Background(), c, "self", other, nil, Users{}); err != nil {
		t.Errorf("an object nobody else uses was called a clash: %v", err)
	}
}

func TestConfigWordsAgree(t *testing.T) {
	t.Parallel()
	live := utiltesting.MakeProvisioningRequestConfig("").ProvisioningClass("queued-provisioning.gke.io").
		ManagedResources([]corev1.ResourceName{"google.com/tpu", "cpu"}).WithParameter("maxRunDurationSeconds", "3600").
		RetryStrategy(&kueue.ProvisioningRequestRetryStrategy{BackoffLimitCount: ptr.To[int32](5)}).Obj()
	declared := kueueac.ProvisioningRequestConfigSpec().
		WithProvisioningClassName("queued-provisioning.gke.io").
		WithManagedResources("cpu", "google.com/tpu").
		WithParameters(map[string]kueue.Parameter{"maxRunDurationSeconds": "3600"}).
		WithRetryStrategy(kueueac.ProvisioningRequestRetryStrategy().WithBackoffLimitCount(5))
	want := "class queued-provisioning.gke.io for [cpu google.com/tpu], parameters {maxRunDurationSeconds=3600}, retries 5 (60 s to 1800 s)"
	if got := DescribeConfig(live); got != want {
		t.Errorf("DescribeConfig = %q, want %q", got, want)
	}
	if got := ConfigSpecWords(declared); got != want {
		t.Errorf("ConfigSpecWords = %q, want %q", got, want)
	}
	if got, want := DescribeCheck(dwsCheck("dws-prov", "dws-config")), CheckWords("kueue.x-k8s.io/provisioning-request", "ProvisioningRequestConfig", "dws-config"); got != want {
		t.Errorf("DescribeCheck = %q, want %q", got, want)
	}
}

func TestHoldersError(t *testing.T) {
	t.Parallel()
	var hs []Holder
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		hs = append(hs, Holder{Workload: "default/rayjob-" + n, Owner: "RayJob default/" + n})
	}
	got := HoldersError("cq", "https://127.0.0.1:6443", hs).Error()
	for _, want := range []string{"ClusterQueue cq on https://127.0.0.1:6443 still holds quota for 7 workload(s)", "default/rayjob-e (of RayJob default/e)", "and 2 more"} {
		if !strings.Contains(got, want) {
			t.Errorf("HoldersError = %q, want it to contain %q", got, want)
		}
	}
	if strings.Contains(got, "rayjob-f") {
		t.Errorf("HoldersError names more than five: %q", got)
	}
	if strings.Contains(got, "MultiKueue") {
		t.Errorf("HoldersError speaks of MultiKueue with no copy held: %q", got)
	}
	hs[6].Origin = "multikueue"
	if got := HoldersError("cq", "https://127.0.0.1:6443", hs).Error(); !strings.Contains(got, `a copy a MultiKueue manager (origin "multikueue") placed here`) {
		t.Errorf("HoldersError does not say a copy is MultiKueue's: %q", got)
	}
}

func TestFindHolders(t *testing.T) {
	t.Parallel()
	wl := func(name, cq string, conds ...string) *kueue.Workload {
		w := utiltesting.MakeWorkload(name, "default").OwnerReference(batchv1.SchemeGroupVersion.WithKind("Job"), name+"-job", name)
		if cq != "" {
			w.Admission(utiltesting.MakeAdmission(cq).Obj())
		}
		for _, c := range conds {
			w.Condition(metav1.Condition{Type: c, Status: metav1.ConditionTrue})
		}
		return w.Obj()
	}
	c := clients(
		wl("holds", "cq", kueue.WorkloadQuotaReserved),
		wl("finished", "cq", kueue.WorkloadQuotaReserved, kueue.WorkloadFinished),
		wl("elsewhere", "other", kueue.WorkloadQuotaReserved),
		wl("pending", ""),
	)
	hs, err := FindHolders(context.Background(), c, "cq")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Holder{{Workload: "default/holds", Owner: "Job default/holds-job"}}, hs); diff != "" {
		t.Errorf("FindHolders (-want +got):\n%s", diff)
	}
}
