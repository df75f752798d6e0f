package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	kueuev1beta2 "sigs.k8s.io/kueue/client-go/clientset/versioned/typed/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/localstack"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// The Kubernetes-side acceptance tests share one real control plane (etcd, kube-apiserver, kube-controller-manager,
// the real Kueue), started on first use and stopped by TestMain.
var (
	stackOnce sync.Once
	stack     *localstack.Stack
	stackErr  error
	dws       *gkeemu.DWS
	// autoscaler plays GKE's nodes: Node objects per pool, scale-up from pending pods, scale-down when empty.
	autoscaler *gkeemu.Autoscaler
	stopDWS    context.CancelFunc = func() {}
)

// requireStack returns the running control plane, starting it on first use. It fails, not skips, when the stack's
// binaries are missing: `make test` builds them.
func requireStack(t *testing.T) *localstack.Stack {
	t.Helper()
	testutil.RequireAcceptance(t)
	stackOnce.Do(func() {
		bin := os.Getenv("DWSFALLBACK_STACK_BIN")
		if bin == "" {
			bin, _ = filepath.Abs("../../.local/bin")
		}
		dir, err := os.MkdirTemp("", "dwsfallback-stack-")
		if err != nil {
			stackErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		stack, stackErr = localstack.Start(ctx, localstack.Options{Dir: dir, BinDir: bin, Repo: ".", Tokens: []string{testToken}})
		if stackErr != nil {
			return
		}
		var dctx context.Context
		dctx, stopDWS = context.WithCancel(context.Background())
		dws, autoscaler, stackErr = stack.AttachGKE(dctx, emu, localstack.GKEOptions{DWSDelay: 500 * time.Millisecond, ScaleDownDelay: 3 * time.Second})
	})
	if stackErr != nil {
		t.Fatalf("local control plane: %v", stackErr)
	}
	return stack
}

func stopStack() {
	stopDWS()
	if stack != nil {
		stack.Stop()
	}
}

// adminClients are typed clients of the stack with the admin token, for out-of-band changes and checks.
func adminClients(t *testing.T) *kube.Clients {
	t.Helper()
	s := requireStack(t)
	c, err := kube.New(kube.Target{Host: s.Host, CAData: s.CAPEM, BearerToken: s.AdminToken})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type kueueAPI = kueuev1beta2.KueueV1beta2Interface

// startStack starts a control plane of the test's own, stopped when the test ends: for tests that break or shadow
// what the shared stack runs.
func startStack(t *testing.T, noKueue bool) *localstack.Stack {
	t.Helper()
	testutil.RequireAcceptance(t)
	bin := os.Getenv("DWSFALLBACK_STACK_BIN")
	if bin == "" {
		bin, _ = filepath.Abs("../../.local/bin")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := localstack.Start(ctx, localstack.Options{Dir: t.TempDir(), BinDir: bin, Repo: ".", NoKueue: noKueue})
	if err != nil {
		t.Fatalf("control plane of %s: %v", t.Name(), err)
	}
	t.Cleanup(s.Stop)
	return s
}

// kubeBlockProvider is a provider configuration that reaches a stack through the kubernetes block with a token.
func kubeBlockProvider(s *localstack.Stack, token string) string {
	return fmt.Sprintf(`
provider "dwsfallback" {
  kubernetes {
    host                   = %q
    token                  = %q
    cluster_ca_certificate = %q
  }
}
`, s.Host, token, string(s.CAPEM))
}
