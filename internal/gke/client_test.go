package gke_test

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	container "cloud.google.com/go/container/apiv1"
	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	"golang.org/x/oauth2"
	"google.golang.org/api/option"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
)

const cluster = "projects/p/locations/us-east5-b/clusters/c"

var fast = gke.Backoff{Initial: 5 * time.Millisecond, Max: 50 * time.Millisecond, Multiplier: 1.5}

// newClient returns a client of a fresh emulator that has a RUNNING cluster c.
func newClient(t *testing.T, delay time.Duration) (*gke.Client, *gkeemu.Server) {
	t.Helper()
	emu := gkeemu.New(gkeemu.Options{OperationDelay: delay})
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	api, err := container.NewClusterManagerRESTClient(context.Background(), option.WithEndpoint(srv.URL),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "t"})))
	if err != nil {
		t.Fatal(err)
	}
	c := gke.NewClient(api, fast)
	if err := c.Mutate(context.Background(), cluster, func(ctx context.Context) (*containerpb.Operation, error) {
		return api.CreateCluster(ctx, &containerpb.CreateClusterRequest{Parent: "projects/p/locations/us-east5-b", Cluster: &containerpb.Cluster{Name: "c", InitialNodeCount: 1}})
	}, nil); err != nil {
		t.Fatal(err)
	}
	return c, emu
}

func createPool(c *gke.Client, name string) func(context.Context) (*containerpb.Operation, error) {
	return func(ctx context.Context) (*containerpb.Operation, error) {
		return c.API().CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: cluster, NodePool: &containerpb.NodePool{
			Name: name, Config: &containerpb.NodeConfig{MachineType: "ct6e-standard-4t"}, PlacementPolicy: &containerpb.NodePool_PlacementPolicy{TpuTopology: "4x4"},
		}})
	}
}

func TestMutateRetriesTransientErrors(t *testing.T) {
	c, emu := newClient(t, 10*time.Millisecond)
	emu.FailNext("CreateNodePool", 2, http.StatusTooManyRequests, "")
	emu.FailNext("CreateNodePool", 1, http.StatusServiceUnavailable, "")
	emu.FailNext("GetOperation", 2, http.StatusServiceUnavailable, "")
	var started *containerpb.Operation
	if err := c.Mutate(context.Background(), cluster, createPool(c, "a"), func(op *containerpb.Operation) { started = op }); err != nil {
		t.Fatalf("Mutate() = %v, want success after retries", err)
	}
	if started == nil || started.GetOperationType() != containerpb.Operation_CREATE_NODE_POOL {
		t.Errorf("started callback got %v, want the CREATE_NODE_POOL operation", started)
	}
	if got := emu.Calls()["CreateNodePool"]; got != 4 {
		t.Errorf("CreateNodePool called %d times, want 4 (three refusals, then success)", got)
	}
}

// An operation that collides with one under way is refused by GKE ("Cluster is running incompatible operation"); the
// client waits for the first and goes on.
func TestMutateWaitsForBusyCluster(t *testing.T) {
	c, emu := newClient(t, 150*time.Millisecond)
	// An operation on the cluster itself, started by someone else: the client's lock does not know about it.
	if _, err := c.API().SetLabels(context.Background(), &containerpb.SetLabelsRequest{Name: cluster, ResourceLabels: map[string]string{"by": "hand"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Mutate(context.Background(), cluster, createPool(c, "mine"), nil); err != nil {
		t.Fatalf("Mutate() = %v, want it to wait out the other operation", err)
	}
	if got := emu.Calls()["CreateNodePool"]; got < 3 {
		t.Errorf("CreateNodePool called %d times, want the busy refusal retried", got)
	}
}

func TestMutateSerialisesPerCluster(t *testing.T) {
	c, emu := newClient(t, 30*time.Millisecond)
	errs := make(chan error, 3)
	for _, n := range []string{"a", "b", "d"} {
		go func() { errs <- c.Mutate(context.Background(), cluster, createPool(c, n), nil) }()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// Serialised inside the process, no call meets a busy cluster.
	if got := emu.Calls()["CreateNodePool"]; got != 3 {
		t.Errorf("CreateNodePool called %d times for 3 pools, want 3", got)
	}
}

func TestMutateSurfacesOperationError(t *testing.T) {
	c, emu := newClient(t, 10*time.Millisecond)
	emu.Stockout("dws", 1)
	err := c.Mutate(context.Background(), cluster, createPool(c, "dws"), nil)
	var opErr *gke.OperationError
	if !errors.As(err, &opErr) || !strings.Contains(opErr.Message, "GCE_STOCKOUT") || opErr.Type != "CREATE_NODE_POOL" {
		t.Fatalf("Mutate() = %v, want an OperationError carrying the stockout", err)
	}
}

func TestMutateStopsAtDeadline(t *testing.T) {
	c, emu := newClient(t, 10*time.Millisecond)
	emu.FailNext("CreateNodePool", 1000, http.StatusServiceUnavailable, "backend down")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := c.Mutate(ctx, cluster, createPool(c, "a"), nil)
	if err == nil || !strings.Contains(err.Error(), "backend down") || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Mutate() = %v, want the last API error and the deadline", err)
	}
}

func TestMutateDoesNotRetryBadRequests(t *testing.T) {
	c, emu := newClient(t, 10*time.Millisecond)
	err := c.Mutate(context.Background(), cluster, func(ctx context.Context) (*containerpb.Operation, error) {
		return c.API().CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: cluster, NodePool: &containerpb.NodePool{
			Name: "x", Config: &containerpb.NodeConfig{MachineType: "ct6e-standard-4t"}, PlacementPolicy: &containerpb.NodePool_PlacementPolicy{TpuTopology: "4x3"},
		}})
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "does not fit machine type") {
		t.Fatalf("Mutate() = %v, want GKE's validation error", err)
	}
	if got := emu.Calls()["CreateNodePool"]; got != 1 {
		t.Errorf("CreateNodePool called %d times, want 1: a 400 is final", got)
	}
}

// A pool its reservation cannot hold is refused with a 429 that is not throttling: it is final, not retried until the
// create timeout.
func TestMutateDoesNotRetryReservationShortfall(t *testing.T) {
	c, emu := newClient(t, 10*time.Millisecond)
	if err := emu.AddReservation(gkeemu.Reservation{Zone: "us-east5-b", Name: "small", MachineType: "ct6e-standard-4t", Count: 2}); err != nil {
		t.Fatal(err)
	}
	err := c.Mutate(context.Background(), cluster, func(ctx context.Context) (*containerpb.Operation, error) {
		return c.API().CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: cluster, NodePool: &containerpb.NodePool{
			Name: "r", InitialNodeCount: 4, PlacementPolicy: &containerpb.NodePool_PlacementPolicy{TpuTopology: "4x4"},
			Config: &containerpb.NodeConfig{MachineType: "ct6e-standard-4t", ReservationAffinity: &containerpb.ReservationAffinity{
				ConsumeReservationType: containerpb.ReservationAffinity_SPECIFIC_RESERVATION, Key: "compute.googleapis.com/reservation-name", Values: []string{"small"}}},
		}})
	}, nil)
	if !gke.IsReservationShortfall(err) {
		t.Fatalf("Mutate() = %v, want Compute's reservation shortfall", err)
	}
	if got := emu.Calls()["CreateNodePool"]; got != 1 {
		t.Errorf("CreateNodePool called %d times, want 1: a reservation shortfall is final", got)
	}
}

// A wait says what it waits for (TF_LOG=info), so that a long create is not a bare "Still creating...".
func TestWaitLogsProgress(t *testing.T) {
	c, _ := newClient(t, 100*time.Millisecond)
	var out bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &out)
	if err := c.Mutate(ctx, cluster, createPool(c, "logged"), nil); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "GKE operation") || !strings.Contains(got, "CREATE_NODE_POOL") || !strings.Contains(got, "RUNNING for") {
		t.Errorf("log of the wait:\n%s\nwant the operation, its type and its status", got)
	}
}

func TestErrorClassification(t *testing.T) {
	c, _ := newClient(t, 10*time.Millisecond)
	_, err := c.API().GetNodePool(context.Background(), &containerpb.GetNodePoolRequest{Name: cluster + "/nodePools/missing"})
	if !gke.IsNotFound(err) {
		t.Errorf("IsNotFound(%v) = false", err)
	}
	if err := c.Mutate(context.Background(), cluster, createPool(c, "a"), nil); err != nil {
		t.Fatal(err)
	}
	_, err = createPool(c, "a")(context.Background())
	if !gke.IsAlreadyExists(err) || gke.IsClusterBusy(err) {
		t.Errorf("duplicate create: IsAlreadyExists=%v IsClusterBusy=%v for %v", gke.IsAlreadyExists(err), gke.IsClusterBusy(err), err)
	}
}

// An operation slower than the caller's timeout ends the wait with the deadline and names the operation, so the
// resource can report which GKE operation was still running.
func TestWaitStopsAtDeadlineOfSlowOperation(t *testing.T) {
	c, emu := newClient(t, 10*time.Millisecond)
	emu.SlowOperations(time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var started bool
	err := c.Mutate(ctx, cluster, createPool(c, "slow"), func(*containerpb.Operation) { started = true })
	if !started || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "CREATE_NODE_POOL") {
		t.Fatalf("Mutate() = %v (started %v), want the deadline while waiting for the CREATE_NODE_POOL operation", err, started)
	}
}

// Under a pool snapshot a cluster's pools are read from GKE once, and a caller's change to the map it got stays its own.
func TestListPoolsSnapshot(t *testing.T) {
	c, emu := newClient(t, 0)
	if err := c.Mutate(context.Background(), cluster, createPool(c, "a"), nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want int
	}{
		{"without a snapshot", context.Background(), 3},
		{"under a snapshot", gke.WithPoolSnapshot(context.Background()), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			emu.ResetCalls()
			for range 3 {
				pools, err := gke.ListPools(tc.ctx, c, cluster)
				if err != nil {
					t.Fatal(err)
				}
				if pools["a"] == nil || pools["default-pool"] == nil || len(pools) != 2 {
					t.Fatalf("ListPools() has %v, want a and default-pool", slices.Sorted(maps.Keys(pools)))
				}
				delete(pools, "a")
			}
			if got := emu.Calls()["ListNodePools"]; got != tc.want {
				t.Errorf("ListNodePools calls = %d, want %d", got, tc.want)
			}
		})
	}
}
