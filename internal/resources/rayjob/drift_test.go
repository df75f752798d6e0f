package rayjob

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueuefake "sigs.k8s.io/kueue/client-go/clientset/versioned/fake"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

// A flavor made after the cluster's flavors were remembered (by another plan within the TTL) is still found: CI
// once planned a job's injected node selector as drift because the list it used predated the job's own flavor.
func TestResourceFlavorsReadsAgainForAnUnknownFlavor(t *testing.T) {
	ctx := context.Background()
	client := kueuefake.NewSimpleClientset(&kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "old"}})
	c := &kube.Clients{Host: "https://flavors-read-again", Kueue: client}
	admittedOn := func(f string) *kueue.Workload {
		return &kueue.Workload{Status: kueue.WorkloadStatus{Admission: &kueue.Admission{
			PodSetAssignments: []kueue.PodSetAssignment{{Name: "workers", Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{"google.com/tpu": kueue.ResourceFlavorReference(f)}}},
		}}}
	}
	if got, err := resourceFlavors(ctx, c, admittedOn("old")); err != nil || got["old"] == nil {
		t.Fatalf("first read = %v, %v; want the flavor old", got, err)
	}
	if _, err := client.KueueV1beta2().ResourceFlavors().Create(ctx, &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "new"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := resourceFlavors(ctx, c, admittedOn("new"))
	if err != nil || got["new"] == nil {
		t.Errorf("after the flavor new was made = %v, %v; want it read again", got, err)
	}
}
