package testutil

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/localstack"
)

// StackBin is where the control plane's binaries are: DWSFALLBACK_STACK_BIN, else the repository's .local/bin
// (tests run in their package's folder, two below the root).
func StackBin() string {
	if bin := os.Getenv("DWSFALLBACK_STACK_BIN"); bin != "" {
		return bin
	}
	bin, _ := filepath.Abs("../../.local/bin")
	return bin
}

// StartStack starts a control plane of the test's own (o's Dir and BinDir filled in when empty), stopped when the
// test ends. It skips without TF_ACC, and fails when the binaries are missing: `make test` builds them.
func StartStack(t *testing.T, o localstack.Options) *localstack.Stack {
	t.Helper()
	RequireAcceptance(t)
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	if o.BinDir == "" {
		o.BinDir = StackBin()
	}
	if o.Repo == "" {
		o.Repo = "."
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := localstack.Start(ctx, o)
	if err != nil {
		t.Fatalf("control plane of %s: %v", t.Name(), err)
	}
	t.Cleanup(func() {
		s.Stop()
		for _, r := range s.Restarts() {
			t.Errorf("component of the test's control plane restarted: %s", r)
		}
	})
	return s
}
