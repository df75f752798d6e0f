package gkeemu

import (
	"testing"
	"time"
)

// A mode set without a delay keeps the simulator's delay.
func TestSetModeKeepsDelay(t *testing.T) {
	d := &DWS{mode: DWSProvision, delay: 3 * time.Second}
	d.SetMode(DWSPending, keepDelay)
	if d.mode != DWSPending || d.delay != 3*time.Second {
		t.Errorf("after SetMode(pending, keep): %s after %v, want pending after 3s", d.mode, d.delay)
	}
	d.SetMode(DWSFail, time.Second)
	if d.mode != DWSFail || d.delay != time.Second {
		t.Errorf("after SetMode(fail, 1s): %s after %v", d.mode, d.delay)
	}
}
