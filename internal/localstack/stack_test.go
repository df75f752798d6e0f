package localstack_test

import (
	"context"
	"fmt"
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
		t.Errorf("PIDs = %v, want etcd, kube-apiserver, kube-scheduler, kwok, kube-controller-manager and kueue", pids)
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

	if r := s.Restarts(); len(r) != 0 {
		t.Errorf("components restarted before anything was done to them: %v", r)
	}
	killAfterGcloud(ctx, t, s, kq)

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

// gcloudContext is what `gcloud container clusters get-credentials` writes into the user's kubeconfig: a context that
// authenticates through gke-gcloud-auth-plugin, made current. None of the stack's processes may read it.
const gcloudContext = `apiVersion: v1
kind: Config
clusters:
- name: gke_p_us-east5-b_tpu-cluster
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: gke_p_us-east5-b_tpu-cluster
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: gke-gcloud-auth-plugin
      provideClusterInfo: true
contexts:
- name: gke_p_us-east5-b_tpu-cluster
  context: {cluster: gke_p_us-east5-b_tpu-cluster, user: gke_p_us-east5-b_tpu-cluster}
current-context: gke_p_us-east5-b_tpu-cluster
`

// killAfterGcloud rewrites the exported kubeconfig as gcloud does, kills Kueue, and requires it back: started again
// with the stack's own credentials, serving its webhooks, with its death recorded.
func killAfterGcloud(ctx context.Context, t *testing.T, s *localstack.Stack, kq *kueueclient.Clientset) {
	t.Helper()
	if err := os.WriteFile(s.Kubeconfig, []byte(gcloudContext), 0o600); err != nil {
		t.Fatal(err)
	}
	pid := s.PID("kueue")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var err error
	for i := 0; ; i++ {
		_, err = kq.KueueV1beta2().ResourceFlavors().Apply(ctx, kueueac.ResourceFlavor(fmt.Sprintf("after-%d", i)), metav1.ApplyOptions{FieldManager: "test"})
		if err == nil && s.PID("kueue") != pid {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("Kueue did not serve again after it was killed: %v", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	r := s.Restarts()
	if len(r) != 1 || r[0].Component != "kueue" || r[0].Exit != "signal: killed" {
		t.Errorf("Restarts() = %v, want Kueue's one, killed", r)
	}
}
