package localstack_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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

// A child that cannot bind its port makes the start go again on other ports (three times at most), and a start that
// fails returns its error, having stopped what it started.
func TestStartRetriesATakenPort(t *testing.T) {
	testutil.RequireAcceptance(t)
	dir := t.TempDir()
	count := filepath.Join(dir, "starts")
	etcd := filepath.Join(dir, "etcd")
	script := "#!/bin/sh\necho x >> " + count + "\necho 'listen tcp 127.0.0.1:1: bind: address already in use' >&2\nexit 1\n"
	if err := os.WriteFile(etcd, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := localstack.Start(ctx, localstack.Options{Dir: filepath.Join(dir, "stack"), BinDir: testutil.StackBin(), Repo: ".", Etcd: etcd})
	if err == nil || s != nil || !strings.Contains(err.Error(), "taken before it was bound") {
		t.Fatalf("Start = %v, %v; want the taken port named", s, err)
	}
	b, _ := os.ReadFile(count)
	if n := strings.Count(string(b), "x"); n != 3 {
		t.Errorf("etcd started %d times, want 3", n)
	}
}
