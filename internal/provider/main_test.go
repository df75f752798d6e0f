package provider

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	container "cloud.google.com/go/container/apiv1"
	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"golang.org/x/oauth2"
	"google.golang.org/api/option"
	kueuev1beta2 "sigs.k8s.io/kueue/client-go/clientset/versioned/typed/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/localstack"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// The acceptance tests run the real terraform CLI against the provider served in-process, and the provider against
// a GKE emulator on loopback, also in-process so that tests can inject faults and change things out of band.
const (
	testProject  = "acc-project"
	testLocation = "us-east5-b"
	testToken    = "acc-test-token"
)

var (
	emu         *gkeemu.Server
	emuEndpoint string
)

var testProviders = map[string]func() (tfprotov6.ProviderServer, error){
	"dwsfallback": NewServer(&dwsProvider{
		version: "test",
		backoff: gke.Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, Multiplier: 1.5},
	}),
}

func TestMain(m *testing.M) {
	emu = gkeemu.New(gkeemu.Options{OperationDelay: 50 * time.Millisecond, Tokens: []string{testToken}})
	srv := httptest.NewServer(emu)
	emuEndpoint = srv.URL
	for k, v := range map[string]string{
		"DWSFALLBACK_CONTAINER_ENDPOINT": srv.URL,
		"GOOGLE_OAUTH_ACCESS_TOKEN":      testToken,
		"GOOGLE_PROJECT":                 testProject,
		"GOOGLE_ZONE":                    testLocation,
		"GOOGLE_CREDENTIALS":             "",
	} {
		if err := os.Setenv(k, v); err != nil {
			panic(err)
		}
	}
	code := m.Run()
	// The shared stack served the whole run: every component of it, and of the control planes started beside it,
	// should have run from start to end. A restart is a bug of the stack's, whichever test it happened under.
	if stack != nil {
		if r := stack.Restarts(); len(r) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: %d restarts of the shared local stack's components (%s):\n", len(r), stack.RestartLogPath())
			for _, x := range r {
				fmt.Fprintf(os.Stderr, "  %s\n", x)
			}
			code = 1
		}
	}
	stopStack()
	srv.Close()
	removeRunFiles(code)
	os.Exit(code)
}

// gkeAPI is a direct client of the emulator, for changes "out of band" (as a person with gcloud would make them) and
// for checks of what exists.
func gkeAPI(t *testing.T) *gke.Client {
	t.Helper()
	api, err := container.NewClusterManagerRESTClient(context.Background(),
		option.WithEndpoint(emuEndpoint),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testToken})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = api.Close() })
	return gke.NewClient(api, gke.Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, Multiplier: 1.5})
}

// createTestCluster makes a RUNNING cluster of that name in the emulator and deletes it when the test ends.
func createTestCluster(t *testing.T, name string) clusterscope.Ref {
	t.Helper()
	return createTestClusterIn(t, testLocation, name)
}

// createTestClusterIn is createTestCluster in another location.
func createTestClusterIn(t *testing.T, location, name string) clusterscope.Ref {
	t.Helper()
	return createClusterIn(t, location, &containerpb.Cluster{
		Name: name, InitialClusterVersion: "1.34",
		NodePools: []*containerpb.NodePool{{Name: "default-pool", InitialNodeCount: 1, Config: &containerpb.NodeConfig{MachineType: "n2-standard-16"}}},
	})
}

// createClusterIn makes the cluster described in location, waits until it is RUNNING, and deletes it when the test
// ends.
func createClusterIn(t *testing.T, location string, cl *containerpb.Cluster) clusterscope.Ref {
	t.Helper()
	ref := clusterscope.Ref{Project: testProject, Location: location, Name: cl.Name}
	c := gkeAPI(t)
	parent := fmt.Sprintf("projects/%s/locations/%s", testProject, location)
	err := c.Mutate(context.Background(), ref.String(), func(ctx context.Context) (*containerpb.Operation, error) {
		return c.API().CreateCluster(ctx, &containerpb.CreateClusterRequest{Parent: parent, Cluster: cl})
	}, nil)
	if err != nil {
		t.Fatalf("creating test cluster %s: %v", cl.Name, err)
	}
	t.Cleanup(func() { _ = deleteCluster(c, ref) })
	return ref
}

// deleteTestCluster deletes a cluster as someone with gcloud would.
func deleteTestCluster(t *testing.T, ref clusterscope.Ref) {
	t.Helper()
	if err := deleteCluster(gkeAPI(t), ref); err != nil {
		t.Fatalf("deleting cluster %s: %v", ref, err)
	}
}

func deleteCluster(c *gke.Client, ref clusterscope.Ref) error {
	return c.Mutate(context.Background(), ref.String(), func(ctx context.Context) (*containerpb.Operation, error) {
		return c.API().DeleteCluster(ctx, &containerpb.DeleteClusterRequest{Name: ref.String()})
	}, nil)
}

// testPools lists the node pools of a cluster by name.
func testPools(t *testing.T, ref clusterscope.Ref) map[string]*containerpb.NodePool {
	t.Helper()
	pools, err := gke.ListPools(context.Background(), gkeAPI(t), ref.String())
	if err != nil {
		t.Fatalf("listing pools of %s: %v", ref, err)
	}
	return pools
}

// gkeAPIForCheck serves check functions that have no *testing.T (CheckDestroy).
func gkeAPIForCheck() *gke.Client {
	api, err := container.NewClusterManagerRESTClient(context.Background(),
		option.WithEndpoint(emuEndpoint),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testToken})))
	if err != nil {
		panic(err)
	}
	return gke.NewClient(api, gke.Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, Multiplier: 1.5})
}

// requireStack returns the running control plane, starting it on first use. It fails, not skips, when the stack's
// binaries are missing: `make test` builds them.
func requireStack(t *testing.T) *localstack.Stack {
	t.Helper()
	testutil.RequireAcceptance(t)
	stackOnce.Do(func() {
		bin := testutil.StackBin()
		dir, err := os.MkdirTemp("", "dwsfallback-stack-")
		if err != nil {
			stackErr = err
			return
		}
		stackDir = dir
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		stack, stackErr = localstack.Start(ctx, localstack.Options{Dir: dir, BinDir: bin, Repo: ".", Tokens: []string{testToken}})
		if stackErr != nil {
			return
		}
		var dctx context.Context
		dctx, stopDWS = context.WithCancel(context.Background())
		stackErr = stack.AttachGKE(dctx, emu, localstack.GKEOptions{DWSDelay: 500 * time.Millisecond, ScaleDownDelay: 3 * time.Second, TimeScale: 0.01, SparePlanes: testPlanes()})
	})
	if stackErr != nil {
		t.Fatalf("local control plane: %v", stackErr)
	}
	return stack
}

// removeRunFiles removes what the run left in the temporary folder, about 220 MB a run: the provider binary, and the
// stack's etcd data and logs unless a test failed, when they are what shows why.
func removeRunFiles(code int) {
	if pluginDir != "" {
		_ = os.RemoveAll(pluginDir)
	}
	if stackDir == "" {
		return
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "the shared stack's data and logs are kept in %s\n", stackDir)
		return
	}
	_ = os.RemoveAll(stackDir)
}

func stopStack() {
	stopDWS()
	if stack != nil {
		stack.Stop()
	}
}

// serialStack is requireStack for the tests that run alone (no t.Parallel), about the shared control plane or
// stopping a worker's API server that may be it. When one fails, the emulated clusters it left behind (a destroy
// that failed) are deleted: only a test that runs alone can tell them from other tests' clusters, still in use.
func serialStack(t *testing.T) *localstack.Stack {
	t.Helper()
	s := requireStack(t)
	before := clusterNames(t)
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		c := gkeAPIForCheck()
		for ref := range clusterNames(t) {
			if before[ref] {
				continue
			}
			t.Logf("deleting cluster %s, which the test left behind", ref)
			if err := deleteCluster(c, ref); err != nil {
				t.Errorf("deleting cluster %s left behind: %v", ref, err)
			}
		}
	})
	return s
}

// clusterNames lists the emulated clusters of the test project, in every location (tests put TPUs that
// testLocation lacks in zones that offer them).
func clusterNames(t *testing.T) map[clusterscope.Ref]bool {
	list, err := gkeAPIForCheck().API().ListClusters(context.Background(), &containerpb.ListClustersRequest{
		Parent: fmt.Sprintf("projects/%s/locations/-", testProject)})
	if err != nil {
		t.Fatalf("listing clusters: %v", err)
	}
	refs := map[clusterscope.Ref]bool{}
	for _, cl := range list.Clusters {
		refs[clusterscope.Ref{Project: testProject, Location: cl.Location, Name: cl.Name}] = true
	}
	return refs
}

// startStack starts a control plane of the test's own, stopped when the test ends: for tests that break or shadow
// what the shared stack runs.
func startStack(t *testing.T, noKueue bool) *localstack.Stack {
	t.Helper()
	return testutil.StartStack(t, localstack.Options{NoKueue: noKueue})
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

// kubeBlock is kubeBlockProvider's block as a protocol test configures the provider with it, with the admin token.
func kubeBlock(s *localstack.Stack) map[string]any {
	return map[string]any{"kubernetes": map[string]any{"host": s.Host, "token": s.AdminToken, "cluster_ca_certificate": string(s.CAPEM)}}
}

// The Kubernetes-side acceptance tests share one real stack (etcd, kube-apiserver, kube-controller-manager, the real
// Kueue), started on first use and stopped by TestMain: its control plane serves one cluster at a time, and the
// clusters beside it get planes of their own, kept for the next clusters when theirs are deleted.
var (
	stackOnce sync.Once
	stack     *localstack.Stack
	stackErr  error
	// stackDir holds the stack's data and logs: removed after a run that passed, kept for one that failed.
	stackDir string
	stopDWS  context.CancelFunc = func() {}
)

type kueueAPI = kueuev1beta2.KueueV1beta2Interface
