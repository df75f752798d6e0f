package provider

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/localstack"
)

// planeSlots bounds how many clusters' control planes the tests that reach them hold at once. Each such test runs
// beside the others (t.Parallel) on its own clusters' planes, and the stack keeps deleted clusters' planes, emptied,
// for the next (GKEOptions.SparePlanes): so the run starts a few control planes, not one per test. More at once
// than the machine has cores left the last ones thrashing (see the GNUmakefile); DWSFALLBACK_TEST_PLANES sets it.
var planeSlots = semaphore.NewWeighted(int64(testPlanes()))

func testPlanes() int {
	if n, err := strconv.Atoi(os.Getenv("DWSFALLBACK_TEST_PLANES")); err == nil && n > 0 {
		return n
	}
	return 2
}

// stackTest starts a test that reaches the Kubernetes objects of as many clusters as planes says: it runs beside the
// other tests once it holds that many of the slots.
func stackTest(t *testing.T, planes int) {
	t.Helper()
	t.Parallel()
	requireStack(t)
	n := min(int64(planes), int64(testPlanes()))
	if err := planeSlots.Acquire(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { planeSlots.Release(n) })
}

// clusterPlane is a test's way to its cluster's Kubernetes objects, as the cluster's admin with kubectl or typed
// clients: the control plane of that cluster, whichever stack serves it.
type clusterPlane struct {
	t   *testing.T
	ref clusterscope.Ref
}

// on reaches the cluster (which may not exist yet): each call finds its control plane anew.
func on(t *testing.T, ref clusterscope.Ref) *clusterPlane { return &clusterPlane{t: t, ref: ref} }

// stack is the cluster's control plane, given it now if nobody has reached the cluster yet.
func (c *clusterPlane) stack() *localstack.Stack {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := requireStack(c.t).ClusterPlane(ctx, c.ref.String())
	if err != nil {
		c.t.Fatalf("the control plane of %s: %v", c.ref, err)
	}
	return s
}

// clients are typed clients of the cluster with the admin token.
func (c *clusterPlane) clients() *kube.Clients {
	c.t.Helper()
	return adminClients(c.t, c.stack())
}

// adminClients are typed clients of a control plane with its admin token.
func adminClients(t *testing.T, s *localstack.Stack) *kube.Clients {
	t.Helper()
	c, err := kube.New(kube.Target{Host: s.Host, CAData: s.CAPEM, BearerToken: s.AdminToken})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// kubectl runs the real kubectl against the cluster, with stdin.
func (c *clusterPlane) kubectl(stdin string, args ...string) string {
	c.t.Helper()
	bin, err := exec.LookPath("kubectl")
	if err != nil {
		c.t.Fatalf("kubectl is not installed; the equivalence tests apply the tutorial's manifests with it: %v", err)
	}
	cmd := exec.Command(bin, append([]string{"--kubeconfig", c.stack().Kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// setDWS makes the simulated DWS answer this cluster's ProvisioningRequests with mode after delay, as the
// emulator's admin API does for one cluster; other tests' clusters keep theirs.
func (c *clusterPlane) setDWS(mode gkeemu.DWSMode, delay time.Duration) {
	c.t.Helper()
	if !emu.SetClusterDWS(c.ref.Name, mode, delay) {
		c.t.Fatalf("setting DWS for %s: no single cluster of that name", c.ref)
	}
}
