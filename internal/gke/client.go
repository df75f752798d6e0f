// Package gke is the provider's way to GKE: it wraps the container REST client with what Terraform resources need and
// the raw client lacks: waiting for long-running operations, one operation at a time per cluster, and retries of the
// errors GKE expects callers to retry. It knows nothing of Terraform types.
package gke

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/googleapis/gax-go/v2"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"
)

// API is the subset of *container.ClusterManagerClient the provider uses; tests may hand in a fake.
type API interface {
	GetCluster(context.Context, *containerpb.GetClusterRequest, ...gax.CallOption) (*containerpb.Cluster, error)
	ListClusters(context.Context, *containerpb.ListClustersRequest, ...gax.CallOption) (*containerpb.ListClustersResponse, error)
	CreateCluster(context.Context, *containerpb.CreateClusterRequest, ...gax.CallOption) (*containerpb.Operation, error)
	UpdateCluster(context.Context, *containerpb.UpdateClusterRequest, ...gax.CallOption) (*containerpb.Operation, error)
	DeleteCluster(context.Context, *containerpb.DeleteClusterRequest, ...gax.CallOption) (*containerpb.Operation, error)
	SetAddonsConfig(context.Context, *containerpb.SetAddonsConfigRequest, ...gax.CallOption) (*containerpb.Operation, error)
	SetLabels(context.Context, *containerpb.SetLabelsRequest, ...gax.CallOption) (*containerpb.Operation, error)
	ListNodePools(context.Context, *containerpb.ListNodePoolsRequest, ...gax.CallOption) (*containerpb.ListNodePoolsResponse, error)
	GetNodePool(context.Context, *containerpb.GetNodePoolRequest, ...gax.CallOption) (*containerpb.NodePool, error)
	CreateNodePool(context.Context, *containerpb.CreateNodePoolRequest, ...gax.CallOption) (*containerpb.Operation, error)
	DeleteNodePool(context.Context, *containerpb.DeleteNodePoolRequest, ...gax.CallOption) (*containerpb.Operation, error)
	SetNodePoolAutoscaling(context.Context, *containerpb.SetNodePoolAutoscalingRequest, ...gax.CallOption) (*containerpb.Operation, error)
	UpdateNodePool(context.Context, *containerpb.UpdateNodePoolRequest, ...gax.CallOption) (*containerpb.Operation, error)
	SetNodePoolManagement(context.Context, *containerpb.SetNodePoolManagementRequest, ...gax.CallOption) (*containerpb.Operation, error)
	GetOperation(context.Context, *containerpb.GetOperationRequest, ...gax.CallOption) (*containerpb.Operation, error)
}

// Backoff is the schedule of retries and operation polls: Initial, then times Multiplier, at most Max. Retries take
// gax's full jitter (gax.Backoff); operation polls keep a narrow jitter, so a pool's wait costs a steady number of
// GetOperation calls.
type Backoff struct {
	Initial, Max time.Duration
	Multiplier   float64
}

// DefaultBackoff suits GKE: operations take minutes, and GKE asks callers of a busy cluster to wait and try again.
var DefaultBackoff = Backoff{Initial: time.Second, Max: 15 * time.Second, Multiplier: 1.6}

func (b Backoff) next(d time.Duration) time.Duration {
	if d == 0 {
		return b.Initial
	}
	d = time.Duration(float64(d) * b.Multiplier)
	if d > b.Max {
		d = b.Max
	}
	return d
}

// Client calls GKE with operation waiting, per-cluster serialisation and retries.
type Client struct {
	api     API
	backoff Backoff
	locks   sync.Map // cluster resource name -> *sync.Mutex
	// compute reads the reservations node pools consume; nil in clients made by NewClient alone.
	compute *compute.ReservationsService
}

// NewClient wraps api.
func NewClient(api API, b Backoff) *Client {
	if b.Initial == 0 {
		b = DefaultBackoff
	}
	return &Client{api: api, backoff: b}
}

// API returns the wrapped client, for reads that need no retry handling beyond the client's own.
func (c *Client) API() API { return c.api }

// Read calls read, retrying throttling and unavailability until ctx ends.
func Read[T any](ctx context.Context, c *Client, read func(context.Context) (T, error)) (T, error) {
	r := c.retryer(false)
	var last error
	for {
		v, err := read(ctx)
		if err != nil && ctx.Err() != nil {
			return v, giveUp(last, err, ctx.Err())
		}
		if err == nil {
			return v, nil
		}
		d, again := r.Retry(err)
		if !again {
			return v, explain(err)
		}
		last = err
		if serr := gax.Sleep(ctx, d); serr != nil {
			return v, giveUp(last, err, serr)
		}
	}
}

// transientCodes are the HTTP statuses of GKE's answers that pass by themselves: throttling and unavailability.
var transientCodes = []int{http.StatusTooManyRequests, http.StatusServiceUnavailable, http.StatusBadGateway, http.StatusGatewayTimeout}

// retryer is gax's Retryer for GKE's passing errors (gax.OnHTTPCodes, with gax's backoff), and, when busy is set, for
// GKE's refusal of a second operation on a busy cluster, which it asks callers to retry.
func (c *Client) retryer(busy bool) gax.Retryer {
	bo := gax.Backoff{Initial: c.backoff.Initial, Max: c.backoff.Max, Multiplier: c.backoff.Multiplier}
	return &gkeRetryer{codes: gax.OnHTTPCodes(bo, transientCodes...), backoff: bo, busy: busy}
}

type gkeRetryer struct {
	codes   gax.Retryer
	backoff gax.Backoff
	busy    bool
}

func (r *gkeRetryer) Retry(err error) (time.Duration, bool) {
	switch {
	case IsReservationShortfall(err):
		// A 429, but not throttling: only reserved VMs freed elsewhere lift it, so the user hears of it now.
		return 0, false
	case r.busy && IsClusterBusy(err):
		return r.backoff.Pause(), true
	}
	return r.codes.Retry(err)
}

// giveUp is the error of a retry loop whose context ended: the last error GKE answered (the cause of the retries),
// with the deadline; err is what the final, interrupted call returned.
func giveUp(last, err, ctxErr error) error {
	if last == nil {
		return err
	}
	return fmt.Errorf("%w (gave up retrying: %w)", last, ctxErr)
}

// Mutate starts an operation on a cluster and waits until it is DONE. It holds the cluster's lock throughout, because
// GKE refuses a second operation on a busy cluster, and retries that refusal (from operations other processes started),
// throttling and unavailability until ctx ends. started, if not nil, is called once the operation exists, before the
// wait: resources record what they created there, so a failed or interrupted wait cannot orphan it.
func (c *Client) Mutate(ctx context.Context, cluster string, start func(context.Context) (*containerpb.Operation, error), started func(*containerpb.Operation)) error {
	mu := c.lock(cluster)
	mu.Lock()
	defer mu.Unlock()
	var (
		op   *containerpb.Operation
		err  error
		last error
	)
	r := c.retryer(true)
	for {
		op, err = start(ctx)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return giveUp(last, err, ctx.Err())
		}
		d, again := r.Retry(err)
		if !again {
			return explain(err)
		}
		last = err
		if serr := gax.Sleep(ctx, d); serr != nil {
			return giveUp(last, err, serr)
		}
	}
	if started != nil {
		started(op)
	}
	return c.Wait(ctx, operationName(cluster, op), op)
}

// Wait polls op (whose resource name is name) until it is DONE and returns its error, if it ended with one.
func (c *Client) Wait(ctx context.Context, name string, op *containerpb.Operation) error {
	var wait time.Duration
	start, logged, lastStatus := time.Now(), time.Time{}, containerpb.Operation_STATUS_UNSPECIFIED
	for op.GetStatus() != containerpb.Operation_DONE {
		// What would otherwise be a bare "Still creating...": the operation, its status and how long it has run,
		// when the status changes and at least every progressEvery (TF_LOG=info shows it).
		if now := time.Now(); op.GetStatus() != lastStatus || now.Sub(logged) >= progressEvery {
			lastStatus, logged = op.GetStatus(), now
			tflog.Info(ctx, fmt.Sprintf("GKE operation %s (%s%s): %s for %s", op.GetName(), op.GetOperationType(),
				operationTarget(op), op.GetStatus(), now.Sub(start).Round(time.Second)))
		}
		wait = c.backoff.next(wait)
		if err := sleep(ctx, wait); err != nil {
			return fmt.Errorf("waiting for operation %s (%s, last status %s): %w", op.GetName(), op.GetOperationType(), op.GetStatus(), err)
		}
		next, err := Read(ctx, c, func(ctx context.Context) (*containerpb.Operation, error) {
			return c.api.GetOperation(ctx, &containerpb.GetOperationRequest{Name: name})
		})
		if err != nil && ctx.Err() != nil {
			return fmt.Errorf("waiting for operation %s (%s, last status %s): %w", op.GetName(), op.GetOperationType(), op.GetStatus(), ctx.Err())
		}
		if err != nil {
			return fmt.Errorf("reading operation %s: %w", op.GetName(), err)
		}
		op = next
	}
	if e := op.GetError(); e != nil && (e.GetCode() != 0 || e.GetMessage() != "") {
		return &OperationError{Operation: op.GetName(), Type: op.GetOperationType().String(), Message: e.GetMessage()}
	}
	return nil
}

// progressEvery is how often a wait logs an operation whose status has not changed.
const progressEvery = 30 * time.Second

// operationTarget is " on " and what the operation works on, from its target link (clusters/C/nodePools/P), or "".
func operationTarget(op *containerpb.Operation) string {
	t := op.GetTargetLink()
	if i := strings.Index(t, "/clusters/"); i >= 0 {
		return " on " + t[i+1:]
	}
	return ""
}

func (c *Client) lock(cluster string) *sync.Mutex {
	mu, _ := c.locks.LoadOrStore(cluster, &sync.Mutex{})
	m, _ := mu.(*sync.Mutex) // the map holds nothing else
	return m
}

// operationName is the operation's resource name, projects/P/locations/L/operations/N, built from the cluster it runs
// on: Operation.name is only the last segment, and selfLink may carry the project number and the legacy zones form.
func operationName(cluster string, op *containerpb.Operation) string {
	if i := strings.Index(cluster, "/clusters/"); i >= 0 {
		return cluster[:i] + "/operations/" + op.GetName()
	}
	return op.GetName()
}

// OperationError is an operation that ended with an error, such as a stockout.
type OperationError struct {
	Operation, Type, Message string
}

func (e *OperationError) Error() string {
	return fmt.Sprintf("operation %s (%s) failed: %s", e.Operation, e.Type, e.Message)
}

// explain adds the fix to GKE's refusals of the caller's credentials, whose own messages do not say it.
func explain(err error) error {
	switch httpCode(err) {
	case http.StatusUnauthorized:
		return fmt.Errorf("%w\nGKE refused the credentials: the access token expired or was revoked (UNAUTHENTICATED). Renew it "+
			"(gcloud auth application-default login, a fresh access_token, or the credentials attribute) and apply again", err)
	case http.StatusForbidden:
		return fmt.Errorf("%w\nThe credentials lack a permission on this project (PERMISSION_DENIED); grant the identity roles/container.admin "+
			"(or roles/container.clusterAdmin) and apply again", err)
	}
	return err
}

// IsNotFound reports whether GKE answered 404.
func IsNotFound(err error) bool { return httpCode(err) == http.StatusNotFound }

// IsAlreadyExists reports whether GKE answered 409.
func IsAlreadyExists(err error) bool { return httpCode(err) == http.StatusConflict }

// IsClusterBusy reports GKE's FAILED_PRECONDITION for a cluster that runs an operation the call collides with, to be
// retried once it is done: today's "Cluster is running incompatible operation OP." (kubernetes-sigs/
// cluster-api-provider-gcp#1363, rancher/gke-operator#509) and older GKE's "Operation OP is currently ... Please wait and
// try again once it is done." (hashicorp/terraform-provider-google#3650).
func IsClusterBusy(err error) bool {
	var ge *googleapi.Error
	if !errors.As(err, &ge) || ge.Code != http.StatusBadRequest {
		return false
	}
	return strings.Contains(ge.Message, "is running incompatible operation") || strings.Contains(ge.Message, "Please wait and try again") ||
		strings.Contains(ge.Message, "is currently")
}

// IsReservationShortfall reports Compute Engine's refusal, with a 429, of node pool VMs that the specific reservation
// the pool names cannot hold: "Reservation does not have enough resources for the request: specific reservation ...
// is insufficient for node pool ..." (GoogleCloudPlatform/gsutil#1000).
func IsReservationShortfall(err error) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == http.StatusTooManyRequests &&
		strings.Contains(ge.Message, "Reservation does not have enough resources for the request")
}

func httpCode(err error) int {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return 0
}

// sleep waits d (with ±20% jitter, so that parallel resources do not retry in lockstep) or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	d = time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Pause waits one polling interval, for callers that poll something other than an operation.
func (c *Client) Pause(ctx context.Context) error { return sleep(ctx, c.backoff.Initial) }
