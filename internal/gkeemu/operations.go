package gkeemu

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
)

type operation struct {
	pb      *containerpb.Operation
	cluster *cluster
	// finish applies the operation's effect when it is DONE; it returns the error the operation ends with, if any.
	finish func() *apiError
	// prepare, when set, runs once before finish, without the emulator's lock: work the operation waits for that
	// calls out (emptying a deleted cluster's control plane). Its error is the operation's.
	prepare     func() *apiError
	prepareOnce sync.Once
	prepareErr  *apiError
	timers      []*time.Timer
	// pool is the node pool the operation is about, "" for one about the cluster.
	pool string
}

// prepared runs op's prepare, once. Callers do not hold s.mu.
func (op *operation) prepared() {
	op.prepareOnce.Do(func() {
		if op.prepare != nil {
			op.prepareErr = op.prepare()
		}
	})
}

// concurrentOpsQuota is how many operations GKE runs on one cluster at once; one more is refused with 429 "Too many
// operations: cluster "X" hits the concurrent operations quota 5, please try again later."
// (hashicorp/terraform-provider-google#15579, #15205). The status name is not on record: RESOURCE_EXHAUSTED is the
// emulator's (FIDELITY.md).
const concurrentOpsQuota = 5

// busy is GKE's refusal of an operation that collides with op, under way on the same cluster: FAILED_PRECONDITION,
// "Cluster is running incompatible operation OP.", with an ErrorInfo of reason CLUSTER_ALREADY_HAS_OPERATION
// (kubernetes-sigs/cluster-api-provider-gcp#1363; the REST form in rancher/gke-operator#509).
func busy(op *operation) *apiError {
	e := errorf(codes.FailedPrecondition, "Cluster is running incompatible operation %s.", op.pb.Name)
	e.info = &errorInfo{reason: "CLUSTER_ALREADY_HAS_OPERATION", domain: "container.googleapis.com"}
	return e
}

// underWay are c's operations not yet DONE, oldest first.
func underWay(c *cluster) []*operation {
	var out []*operation
	for _, op := range c.running {
		if op.pb.Status != containerpb.Operation_DONE {
			out = append(out, op)
		}
	}
	c.running = out
	return out
}

// checkIdle refuses an operation on the cluster itself while any other runs on it: GKE runs "one cluster-level
// operation, or one operation per node pool" at a time (GKE "Troubleshoot concurrent operations").
func (s *Server) checkIdle(c *cluster) *apiError {
	if ops := underWay(c); len(ops) > 0 {
		return busy(ops[0])
	}
	return nil
}

// checkPoolIdle refuses an operation on the node pool pool while a cluster-level operation or another of that pool
// runs, or while the cluster runs its quota of operations: pools are created, updated and deleted side by side (GKE
// "Add and manage node pools": "You can manually create, update, or delete a node pool while another node pool is
// already being created, updated, or deleted").
func (s *Server) checkPoolIdle(c *cluster, pool string) *apiError {
	ops := underWay(c)
	for _, op := range ops {
		if op.pool == "" || op.pool == pool {
			return busy(op)
		}
	}
	if len(ops) >= concurrentOpsQuota {
		return errorf(codes.ResourceExhausted, "Too many operations: cluster %q hits the concurrent operations quota %d, please try again later.",
			c.pb.Name, concurrentOpsQuota)
	}
	return nil
}

// startOp registers an operation on c that is DONE after the configured delay, when finish applies its effect.
func (s *Server) startOp(c *cluster, typ containerpb.Operation_Type, target string, finish func() *apiError) *containerpb.Operation {
	return s.startOpPrepared(c, typ, target, nil, finish)
}

// startOpPrepared is startOp with a prepare step (see operation.prepare), set before the operation's timers start.
func (s *Server) startOpPrepared(c *cluster, typ containerpb.Operation_Type, target string, prepare func() *apiError, finish func() *apiError) *containerpb.Operation {
	now := s.opts.Now()
	s.nextID++
	name := fmt.Sprintf("operation-%d-%08x", now.UnixMilli(), uint32(s.nextID)*2654435761)
	loc := c.pb.Location
	op := &operation{
		cluster: c,
		prepare: prepare,
		finish:  finish,
		pb: &containerpb.Operation{
			Name:          name,
			Zone:          loc,
			Location:      loc,
			OperationType: typ,
			Status:        containerpb.Operation_PENDING,
			SelfLink:      fmt.Sprintf("%s/v1/projects/%s/locations/%s/operations/%s", selfLinkHost, c.project, loc, name),
			TargetLink:    fmt.Sprintf("%s/v1/%s", selfLinkHost, target),
			StartTime:     now.UTC().Format(time.RFC3339Nano),
		},
	}
	s.ops[name] = op
	s.opOrder = append(s.opOrder, name)
	if _, pool, ok := strings.Cut(target, "/nodePools/"); ok {
		op.pool = pool
	}
	c.running = append(c.running, op)
	delay := s.opts.OperationDelay + s.extraDelay(c.pb.Name)
	op.timers = append(op.timers,
		time.AfterFunc(delay/4, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if op.pb.Status == containerpb.Operation_PENDING {
				op.pb.Status = containerpb.Operation_RUNNING
			}
		}),
		time.AfterFunc(delay, func() {
			op.prepared()
			s.mu.Lock()
			defer s.mu.Unlock()
			s.complete(op)
		}))
	out, _ := proto.Clone(op.pb).(*containerpb.Operation)
	return out
}

// complete marks op DONE and applies its effect. Callers hold s.mu.
func (s *Server) complete(op *operation) {
	if op.pb.Status == containerpb.Operation_DONE {
		return
	}
	if e := op.prepareErr; e != nil {
		op.pb.Error = &status.Status{Code: int32(e.code), Message: e.message}
		op.pb.StatusMessage = e.message
	} else if op.finish != nil {
		if e := op.finish(); e != nil {
			op.pb.Error = &status.Status{Code: int32(e.code), Message: e.message}
			op.pb.StatusMessage = e.message
		}
	}
	op.pb.Status = containerpb.Operation_DONE
	op.pb.EndTime = s.opts.Now().UTC().Format(time.RFC3339Nano)
}

// Settle finishes every running operation now, as if their delay had passed. Tests use it to avoid waiting.
func (s *Server) Settle() {
	s.mu.Lock()
	var running []*operation
	for _, name := range s.opOrder {
		if op := s.ops[name]; op.pb.Status != containerpb.Operation_DONE {
			running = append(running, op)
		}
	}
	s.mu.Unlock()
	for _, op := range running {
		op.prepared()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Only those prepared: one started meanwhile finishes on its own timer.
	for _, op := range running {
		for _, t := range op.timers {
			t.Stop()
		}
		s.complete(op)
	}
}

func (s *Server) getOperation(r *request) (proto.Message, *apiError) {
	name := strings.Join(r.parts, "/")
	op, ok := s.ops[name[strings.LastIndex(name, "/")+1:]]
	if !ok || !sameLocation(op, r.parts[1], r.parts[3]) {
		return nil, notFound(name)
	}
	return op.pb, nil
}

func (s *Server) listOperations(r *request) (proto.Message, *apiError) {
	out := &containerpb.ListOperationsResponse{}
	for _, name := range s.opOrder {
		if op := s.ops[name]; sameLocation(op, r.parts[1], r.parts[3]) {
			out.Operations = append(out.Operations, op.pb)
		}
	}
	return out, nil
}

func (s *Server) cancelOperation(r *request) (proto.Message, *apiError) {
	msg, e := s.getOperation(r)
	if e != nil {
		return nil, e
	}
	op, _ := msg.(*containerpb.Operation) // getOperation answers with an Operation
	if op.Status == containerpb.Operation_DONE {
		return nil, errorf(codes.FailedPrecondition, "gkeemu: operation %s is already done; there is nothing to cancel.", op.Name)
	}
	return nil, errorf(codes.FailedPrecondition, "gkeemu: operation %s (%s) cannot be cancelled: the emulator cancels no operation; let it finish.", op.Name, op.OperationType)
}

func sameLocation(op *operation, project, location string) bool {
	return op.cluster.project == project && (location == "-" || op.pb.Location == location)
}

const selfLinkHost = "https://container.googleapis.com"
