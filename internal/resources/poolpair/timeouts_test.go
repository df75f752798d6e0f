package poolpair

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestWithTimeoutAdvice(t *testing.T) {
	late := fmt.Errorf("waiting for operation op-1 (CREATE_NODE_POOL, last status RUNNING): %w", context.DeadlineExceeded)
	got := withTimeoutAdvice(late, "create", 45*time.Minute)
	for _, want := range []string{"op-1", "timeouts.create (45m0s) ran out", "the pair is tainted", "raise timeouts.create"} {
		if !strings.Contains(got, want) {
			t.Errorf("withTimeoutAdvice = %q; want it to say %q", got, want)
		}
	}
	if got := withTimeoutAdvice(errors.New("GCE_STOCKOUT"), "create", time.Minute); got != "GCE_STOCKOUT" {
		t.Errorf("withTimeoutAdvice of another error = %q, want the error alone", got)
	}
}
