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
}

// prepared runs op's prepare, once. Callers do not hold s.mu.
func (op *operation) prepared() {
	op.prepareOnce.Do(func() {
		if op.prepare != nil {
			op.prepareErr = op.prepare()
		}
	})
}

// busyVerb is how GKE's FAILED_PRECONDITION message describes a running operation of each type.
var busyVerb = map[containerpb.Operation_Type]string{
	containerpb.Operation_CREATE_CLUSTER:           "creating cluster",
	containerpb.Operation_DELETE_CLUSTER:           "deleting cluster",
	containerpb.Operation_UPDATE_CLUSTER:           "updating cluster",
	containerpb.Operation_CREATE_NODE_POOL:         "creating a node pool for cluster",
	containerpb.Operation_DELETE_NODE_POOL:         "deleting a node pool for cluster",
	containerpb.Operation_SET_NODE_POOL_MANAGEMENT: "updating a node pool for cluster",
	containerpb.Operation_SET_NODE_POOL_SIZE:       "resizing a node pool for cluster",
	containerpb.Operation_UPGRADE_NODES:            "updating a node pool for cluster",
}

// checkIdle refuses a mutation while another operation runs on the cluster, with GKE's message for it.
func (s *Server) checkIdle(c *cluster) *apiError {
	op := c.activeOp
	if op == nil || op.pb.Status == containerpb.Operation_DONE {
		return nil
	}
	verb := busyVerb[op.pb.OperationType]
	if verb == "" {
		verb = "updating cluster"
	}
	return errorf(codes.FailedPrecondition, "Operation %s is currently %s %s. Please wait and try again once it is done.",
		op.pb.Name, verb, c.pb.Name)
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
	c.activeOp = op
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
		return nil, errorf(codes.FailedPrecondition, "Operation %s is already done.", op.Name)
	}
	return nil, errorf(codes.FailedPrecondition, "Operation %s of type %s cannot be cancelled.", op.Name, op.OperationType)
}

func sameLocation(op *operation, project, location string) bool {
	return op.cluster.project == project && (location == "-" || op.pb.Location == location)
}

const selfLinkHost = "https://container.googleapis.com"
