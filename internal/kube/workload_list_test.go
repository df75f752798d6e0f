package kube

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// The shared LIST decodes every field of a Workload but its pod sets, and asks with the caller's options.
func TestListWorkloadsNoPodSets(t *testing.T) {
	t.Parallel()
	workers := utiltesting.MakePodSet("workers", 4).
		Containers(corev1.Container{Name: "ray-worker", Image: "rayproject/ray", Resources: corev1.ResourceRequirements{
			Limits: corev1.ResourceList{"google.com/tpu": resource.MustParse("4")}}}).
		NodeSelector(map[string]string{"cloud.google.com/gke-tpu-topology": "4x4"}).Obj()
	assigned := utiltesting.MakePodSetAssignment("workers").Flavor("google.com/tpu", "dws").Obj()
	assigned.ResourceUsage = nil // an empty map would not survive JSON's omitempty
	admitted := *utiltesting.MakeWorkload("rayjob-a", "default").Label(wellknown.JobUIDLabel, "uid-a").ResourceVersion("7").
		Queue("dws-local-queue").PodSets(*workers).
		Admission(utiltesting.MakeAdmission("cluster-queue").PodSets(assigned).Obj()).
		Condition(metav1.Condition{Type: kueue.WorkloadAdmitted, Status: metav1.ConditionTrue, Reason: "Admitted",
			LastTransitionTime: metav1.Unix(1_700_000_000, 0)}).Obj() // whole seconds: JSON keeps no less
	admitted.TypeMeta = metav1.TypeMeta{APIVersion: "kueue.x-k8s.io/v1beta2", Kind: "Workload"}
	var query string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		query = r.URL.Path + "?" + r.URL.RawQuery
		_ = json.NewEncoder(w).Encode(kueue.WorkloadList{
			TypeMeta: metav1.TypeMeta{APIVersion: "kueue.x-k8s.io/v1beta2", Kind: "WorkloadList"},
			ListMeta: metav1.ListMeta{ResourceVersion: "9", Continue: "next"},
			Items:    []kueue.Workload{admitted},
		})
	}))
	defer srv.Close()
	kc, err := kueueclient.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	list, err := listWorkloadsNoPodSets(&Clients{Kueue: kc}, "default")(context.Background(), metav1.ListOptions{LabelSelector: wellknown.JobUIDLabel, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := "/apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads?labelSelector=" + "kueue.x-k8s.io%2Fjob-uid" + "&limit=1"; query != want {
		t.Errorf("asked %s, want %s", query, want)
	}
	if list.GetResourceVersion() != "9" || list.GetContinue() != "next" {
		t.Errorf("list meta = %+v", list.ListMeta)
	}
	want := *admitted.DeepCopy()
	want.Spec.PodSets = nil
	if diff := cmp.Diff([]kueue.Workload{want}, list.workloads()); diff != "" {
		t.Errorf("workloads (-want +got):\n%s", diff)
	}
}
