package kube

import (
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestExplain(t *testing.T) {
	t.Parallel()
	c := &Clients{Host: "https://127.0.0.1:6443"}
	gr := schema.GroupResource{Group: "kueue.x-k8s.io", Resource: "clusterqueues"}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"webhook denied", errors.New(`admission webhook "vclusterqueue.kb.io" denied the request: spec.x: Invalid value`),
			"ClusterQueue cq on https://127.0.0.1:6443 was refused by an admission webhook"},
		{"unauthorized", apierrors.NewUnauthorized("token expired"), "refused the provider's credentials (401 Unauthorized)"},
		{"forbidden", apierrors.NewForbidden(gr, "cq", errors.New("no")), "does not allow this (403 Forbidden)"},
		{"conflict", apierrors.NewApplyConflict(nil, "conflict with \"kubectl\""), "set force_conflicts = true"},
		{"not found", apierrors.NewNotFound(gr, "cq"), "ClusterQueue cq on https://127.0.0.1:6443: "},
		{"webhook not answering", errors.New(`Internal error occurred: failed calling webhook "mclusterqueue.kb.io": connection refused`),
			"Kueue's webhook is not answering"},
		{"other", errors.New("boom"), "ClusterQueue cq on https://127.0.0.1:6443: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := c.Explain("ClusterQueue", "cq", tc.err)
			if tc.err == nil {
				if got != nil {
					t.Fatalf("Explain(nil) = %v, want nil", got)
				}
				return
			}
			if !errors.Is(got, tc.err) {
				t.Errorf("Explain does not wrap the error: %v", got)
			}
			if !strings.Contains(got.Error(), tc.want) {
				t.Errorf("Explain() = %q, want it to contain %q", got, tc.want)
			}
		})
	}
	notServed := &apierrors.StatusError{ErrStatus: apierrors.NewNotFound(gr, "").ErrStatus}
	notServed.ErrStatus.Message = "the server could not find the requested resource"
	if got := c.Explain("ClusterQueue", "cq", notServed).Error(); !strings.Contains(got, "install Kueue v0.15 or later") {
		t.Errorf("a cluster without Kueue's API: %q", got)
	}
}
