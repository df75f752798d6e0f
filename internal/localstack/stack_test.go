package localstack_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/localstack"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// TestStartStop brings the real control plane up, checks that Kueue's webhooks and the extra token work, and that
// Stop leaves no process behind.
func TestStartStop(t *testing.T) {
	testutil.RequireAcceptance(t)
	bin := testutil.StackBin()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := localstack.Start(ctx, localstack.Options{Dir: t.TempDir(), BinDir: bin, Repo: ".", Tokens: []string{"google-token"}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	pids := s.PIDs()
	defer s.Stop()
	for _, tm := range s.Timings {
		t.Logf("%-16s %s", tm.Phase, tm.Duration)
	}
	if len(pids) != 6 {
		t.Errorf("PIDs = %v, want etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok and kueue", pids)
	}

	// The extra token is a cluster admin, as the provider's Google token must be.
	cfg := s.RESTConfig()
	cfg.BearerToken = "google-token"
	core, err := corev1client.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := core.Namespaces().Get(ctx, "kueue-system", metav1.GetOptions{}); err != nil {
		t.Errorf("reading kueue-system with the extra token: %v", err)
	}
	// A write that passes through Kueue's webhooks (mutating and validating for ResourceFlavor).
	kq, err := kueueclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kq.KueueV1beta2().ResourceFlavors().Apply(ctx, kueueac.ResourceFlavor("probe"), metav1.ApplyOptions{FieldManager: "test"}); err != nil {
		t.Errorf("applying a ResourceFlavor through Kueue's webhooks: %v", err)
	}

	s.Stop()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("process %d still runs after Stop", pid)
		}
	}
}
