package gkeemu

import (
	"time"
)

// poolBackoff is one node pool's exponential backoff after failed scale-ups.
type poolBackoff struct {
	lastFailed, until time.Time
	last              time.Duration
}

// scaled is a GKE duration on this autoscaler's clock: AutoscalerOptions.TimeScale shortens them all alike.
func (a *Autoscaler) scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) * a.opts.TimeScale)
}

// backOff records a failed scale-up of the pool, as GKE's autoscaler does (its exponential backoff): 5 minutes the
// first time, doubled on each failure after the last backoff ended, up to 30, and forgotten 3 hours after the last
// failure, or at a successful scale-up (clearBackoff). A failure while the pool is still backed off changes nothing.
func (a *Autoscaler) backOff(key string, now time.Time) time.Time {
	b := a.backoffs[key]
	switch {
	case b != nil && now.Before(b.until):
		return b.until
	case b == nil || now.Sub(b.lastFailed) > a.scaled(gkeBackoffReset):
		b = &poolBackoff{last: a.scaled(gkeInitialBackoff)}
	default:
		b.last = min(2*b.last, a.scaled(gkeMaxBackoff))
	}
	b.lastFailed, b.until = now, now.Add(b.last)
	a.backoffs[key] = b
	return b.until
}

// clearBackoff forgets a pool's failures once a scale-up of it succeeds.
func (a *Autoscaler) clearBackoff(key string) { delete(a.backoffs, key) }

// backedOff is when the pool's backoff ends, zero when it is not backed off.
func (a *Autoscaler) backedOff(key string, now time.Time) time.Time {
	if b := a.backoffs[key]; b != nil && now.Before(b.until) {
		return b.until
	}
	return time.Time{}
}

// ruleKey names a ComputeClass priority for its flat backoff.
func ruleKey(class string, i int) string { return class + "/" + priorityID(i) }
