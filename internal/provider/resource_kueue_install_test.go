//go:build !nohelm

package provider

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueuefake "sigs.k8s.io/kueue/client-go/clientset/versioned/fake"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

func TestKueueInUse(t *testing.T) {
	t.Parallel()
	empty := &kube.Clients{Kueue: kueuefake.NewSimpleClientset(), Host: "https://k"}
	if got, err := kueueInUse(context.Background(), empty); err != nil || got != "" {
		t.Errorf("no queues: kueueInUse = %q, %v; want nothing in use", got, err)
	}
	used := &kube.Clients{Host: "https://k", Kueue: kueuefake.NewSimpleClientset(
		&kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}},
		&kueue.Workload{ObjectMeta: metav1.ObjectMeta{Name: "job-1", Namespace: "default"}},
	)}
	got, err := kueueInUse(context.Background(), used)
	if err != nil || !strings.Contains(got, "1 ClusterQueue(s) (team-a) and 1 workload(s)") {
		t.Errorf("kueueInUse = %q, %v; want team-a and one workload named", got, err)
	}
}
