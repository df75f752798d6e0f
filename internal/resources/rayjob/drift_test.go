package rayjob

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueuefake "sigs.k8s.io/kueue/client-go/clientset/versioned/fake"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// A flavor made after the cluster's flavors were remembered (by another plan within the TTL) is still found: CI
// once planned a job's injected node selector as drift because the list it used predated the job's own flavor.
func TestResourceFlavorsReadsAgainForAnUnknownFlavor(t *testing.T) {
	ctx := context.Background()
	client := kueuefake.NewSimpleClientset(utiltesting.MakeResourceFlavor("old").Obj())
	c := &kube.Clients{Host: "https://flavors-read-again", Kueue: client}
	admittedOn := func(f string) *kueue.Workload {
		return utiltesting.MakeWorkload("job", "default").Admission(utiltesting.MakeAdmission("").PodSets(
			utiltesting.MakePodSetAssignment("workers").Flavor(wellknown.TPUResource, kueue.ResourceFlavorReference(f)).Obj()).Obj()).Obj()
	}
	if got, err := resourceFlavors(ctx, c, admittedOn("old")); err != nil || got["old"] == nil {
		t.Fatalf("first read = %v, %v; want the flavor old", got, err)
	}
	if _, err := client.KueueV1beta2().ResourceFlavors().Create(ctx, utiltesting.MakeResourceFlavor("new").Obj(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := resourceFlavors(ctx, c, admittedOn("new"))
	if err != nil || got["new"] == nil {
		t.Errorf("after the flavor new was made = %v, %v; want it read again", got, err)
	}
}
