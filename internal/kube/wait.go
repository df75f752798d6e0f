package kube

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
)

// ConditionTrue reports whether the condition of type typ is True, with its message (or why there is none).
func ConditionTrue(conds []metav1.Condition, typ string) (bool, string) {
	for _, c := range conds {
		if c.Type == typ {
			return c.Status == metav1.ConditionTrue, c.Message
		}
	}
	return false, "no " + typ + " condition yet"
}

// resync is how often a wait looks again without an event, in case a watch dropped one.
const resync = 5 * time.Second

// WaitUntil evaluates check at once and again whenever one of the watched objects changes (with a slow resync in
// case a watch drops), until check says done or ctx ends.
func WaitUntil(ctx context.Context, check func(context.Context) (bool, error), opens ...func(context.Context) (watch.Interface, error)) error {
	return WaitUntilDue(ctx, func(ctx context.Context) (bool, time.Time, error) {
		done, err := check(ctx)
		return done, time.Time{}, err
	}, opens...)
}

// WaitUntilDue is WaitUntil for a check whose answer changes with no event, when a grace period ends: it names that
// moment (zero when there is none), and the wait looks again then rather than at the next resync.
func WaitUntilDue(ctx context.Context, check func(context.Context) (bool, time.Time, error), opens ...func(context.Context) (watch.Interface, error)) error {
	wake := make(chan struct{}, 1)
	poke := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	watchCtx, stop := context.WithCancel(ctx)
	defer stop()
	pause := func() {
		select {
		case <-watchCtx.Done():
		case <-time.After(time.Second):
		}
	}
	for _, open := range opens {
		go func() {
			for watchCtx.Err() == nil {
				w, err := open(watchCtx)
				if err != nil {
					pause()
					continue
				}
				// A watcher that does not close its channel when the context ends is stopped then.
				closed := context.AfterFunc(watchCtx, w.Stop)
				opened := time.Now()
				// What changed before the watch began sends no event: look again once it is there.
				poke()
				for range w.ResultChan() {
					poke()
				}
				closed()
				w.Stop()
				// A watch the server ends at once (a conversion webhook down) is not reopened, and looked after,
				// in a tight loop.
				if time.Since(opened) < time.Second {
					pause()
				}
			}
		}()
	}
	for {
		done, due, err := check(ctx)
		if done {
			return nil
		}
		if err != nil && !apierrors.IsNotFound(err) && !Transient(err) && ctx.Err() == nil {
			return err
		}
		next := resync
		if d := time.Until(due); !due.IsZero() && d < next {
			next = max(d, 50*time.Millisecond) // a moment just past is looked at again at once, never in a spin
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		case <-time.After(next):
		}
	}
}

// ErrStillThere is DeleteAndWait running out of patience.
var ErrStillThere = errors.New("still there")

// DeleteAndWait deletes an object (gone already is fine) and polls until it is gone or patience runs out.
func DeleteAndWait(ctx context.Context, del, get func(context.Context) error, patience time.Duration) error {
	if err := del(ctx); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	var failed error
	err := wait.PollUntilContextTimeout(ctx, 150*time.Millisecond, patience, true, func(ctx context.Context) (bool, error) {
		err := get(ctx)
		if err != nil && !apierrors.IsNotFound(err) {
			if ctx.Err() != nil {
				return false, ctx.Err() // patience ran out during the read (client-go's rate limiter says so first): still there
			}
			failed = err
			return false, err
		}
		return err != nil, nil
	})
	switch {
	case err == nil:
		return nil
	case failed != nil:
		return failed
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		return ErrStillThere
	}
}

// CredentialsHint explains a token the API server at host refused, or a permission it lacks; nil for other errors.
func CredentialsHint(host string, err error) error {
	if WebhookDenied(err) {
		return nil // a 403 from a webhook is about the object, not the identity
	}
	switch {
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("the API server %s refused the provider's credentials (401 Unauthorized): the token expired or "+
			"was revoked. Renew it (gcloud auth application-default login, the credentials attribute, or the kubernetes "+
			"block's token) and apply again: %w", host, err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("the API server %s accepted the credentials but does not allow this (403 Forbidden); grant the "+
			"identity cluster-admin, or the RBAC rules listed for this resource under Permissions on the provider's index page: %w", host, err)
	}
	return nil
}
