package gkeclass

import (
	"context"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

// GVR is the API of GKE's ComputeClass (cloud.google.com/v1, computeclasses).
var GVR = schema.GroupVersionResource{Group: "cloud.google.com", Version: "v1", Resource: "computeclasses"}

// Find reads the class, nil when it does not exist.
func Find(ctx context.Context, c *kube.Clients, name string) (*unstructured.Unstructured, error) {
	u, err := c.Dynamic.Resource(GVR).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, c.Explain("ComputeClass", name, err)
	}
	return u, nil
}

// Health is the class's Health message, then the message of every other condition GKE set on it.
func Health(u *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	var health string
	var rest []string
	for _, c := range conds {
		m, _ := c.(map[string]any)
		msg, _ := m["message"].(string)
		if m["type"] == "Health" {
			health = msg
		} else if msg != "" {
			rest = append(rest, msg)
		}
	}
	return strings.TrimSpace(strings.Join(append([]string{health}, rest...), " "))
}
