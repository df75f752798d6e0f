package multikueue_test

import (
	"context"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/localstack"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// After a worker's API server restarts, Kubernetes' token controller keeps its old cache until its informers list
// again (up to a minute later). A ServiceAccount removed and made again meanwhile (a worker moved away and back) was
// then given a token signed for the deleted ServiceAccount's UID, which the API server rejects; about one run in two
// hit that window before Ensure bound the token Secret to the UID. The token Ensure returns must open the API server.
func TestEnsureAfterAPIServerRestart(t *testing.T) {
	s := testutil.StartStack(t, localstack.Options{NoKueue: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	admin, err := kubernetes.NewForConfig(s.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	c := multikueue.Clients{Core: admin.CoreV1(), RBAC: admin.RbacV1()}
	w := multikueue.Worker{ServiceAccount: "multikueue-sa", User: "manager/w"}
	if _, err := multikueue.Ensure(ctx, c, w); err != nil {
		t.Fatal(err)
	}

	s.StopAPIServer()
	time.Sleep(20 * time.Second) // long enough for the controller's informers to back off
	if err := s.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	if err := multikueue.Remove(ctx, c, w); err != nil {
		t.Fatal(err)
	}
	tok, err := multikueue.Ensure(ctx, c, w)
	if err != nil {
		t.Fatal(err)
	}

	cfg := s.RESTConfig()
	cfg.BearerToken = string(tok)
	as, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	review, err := as.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("the token Ensure returned does not open the API server: %v", err)
	}
	if got, want := review.Status.UserInfo.Username, "system:serviceaccount:kueue-system:multikueue-sa"; got != want {
		t.Errorf("the token is %q's, want %q's", got, want)
	}
	if got, err := multikueue.Token(ctx, c.Core, w); err != nil || string(got) != string(tok) {
		t.Errorf("Token = %d bytes, %v; want the token Ensure returned", len(got), err)
	}
}
