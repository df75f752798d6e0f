package poolpair

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// withTimeoutAdvice is err's text and, when the operation's time ran out, what that means and which timeout to
// raise: GKE goes on with the operation, and "context deadline exceeded" alone says neither.
func withTimeoutAdvice(err error, op string, timeout time.Duration) string {
	if !errors.Is(err, context.DeadlineExceeded) {
		return err.Error()
	}
	next := "the next apply finishes the change"
	if op == "create" {
		next = "the pair is tainted, and the next apply deletes what was made and makes the pair again"
	}
	return fmt.Sprintf("%v\n\ntimeouts.%s (%s) ran out while GKE was still working on the pool; GKE goes on with it. "+
		"What was made is in state, so nothing is orphaned: %s. TPU and GPU pools can take most of an hour: raise "+
		"timeouts.%s before applying again.", err, op, timeout, next, op)
}
