package kube

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestTransient(t *testing.T) {
	cq := schema.GroupResource{Group: "kueue.x-k8s.io", Resource: "clusterqueues"}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"connection refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{"wrapped refused", fmt.Errorf("patch: %w", syscall.ECONNREFUSED), true},
		{"503", apierrors.NewServiceUnavailable("starting"), true},
		{"429", apierrors.NewTooManyRequests("slow down", 1), true},
		{"webhook", errors.New(`Internal error occurred: failed calling webhook "vclusterqueue.kb.io": connection refused`), true},
		{"401", apierrors.NewUnauthorized("no"), false},
		{"not found", apierrors.NewNotFound(cq, "q"), false},
		{"conflict", apierrors.NewConflict(cq, "q", errors.New("field manager")), false},
		{"invalid", apierrors.NewBadRequest("bad"), false},
		{"no such host", &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "typo.example", IsNotFound: true}}, false},
		{"dns timeout", &net.OpError{Op: "dial", Err: &net.DNSError{Err: "i/o timeout", Name: "k8s", IsTimeout: true}}, true},
		{"webhook denied", apierrors.NewForbidden(schema.GroupResource{Group: "ray.io", Resource: "rayjobs"}, "j",
			errors.New(`admission webhook "vrayjob.kb.io" denied the request: spec.rayClusterSpec.enableInTreeAutoscaling: Invalid value`)), false},
	}
	for _, tc := range cases {
		if got := Transient(tc.err); got != tc.want {
			t.Errorf("%s: Transient = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRetryStopsOnLastingError(t *testing.T) {
	calls := 0
	err := Retry(context.Background(), func() error {
		calls++
		if calls < 3 {
			return apierrors.NewServiceUnavailable("starting")
		}
		return apierrors.NewUnauthorized("revoked")
	})
	if !apierrors.IsUnauthorized(err) || calls != 3 {
		t.Fatalf("Retry = %v after %d calls; want Unauthorized after 3", err, calls)
	}
}

func TestWebhookDenied(t *testing.T) {
	denied := apierrors.NewForbidden(schema.GroupResource{Group: "ray.io", Resource: "rayjobs"}, "j",
		errors.New(`admission webhook "vrayjob.kb.io" denied the request: invalid`))
	rbac := apierrors.NewForbidden(schema.GroupResource{Group: "ray.io", Resource: "rayjobs"}, "j", errors.New(`User "x" cannot create resource`))
	for _, tc := range []struct {
		err  error
		want bool
	}{{nil, false}, {denied, true}, {rbac, false}} {
		if got := WebhookDenied(tc.err); got != tc.want {
			t.Errorf("WebhookDenied(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
