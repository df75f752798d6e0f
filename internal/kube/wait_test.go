package kube

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// errRateLimiter stands for a read that blocks until the poll's deadline and fails with it.
var errRateLimiter = errors.New("rate limiter")

func TestDeleteAndWait(t *testing.T) {
	gone := apierrors.NewNotFound(schema.GroupResource{Resource: "clusterqueues"}, "q")
	boom := errors.New("boom")
	cases := []struct {
		name     string
		gets     []error // what get returns, call by call; the last repeats
		patience time.Duration
		want     error
	}{
		{"gone at once", []error{gone}, time.Second, nil},
		{"gone after two reads", []error{nil, nil, gone}, time.Second, nil},
		{"still there", []error{nil}, 400 * time.Millisecond, ErrStillThere},
		{"read fails", []error{nil, boom}, time.Second, boom},
		// client-go's rate limiter refuses to wait past the deadline before the request: patience, not a failure.
		{"patience runs out during a read", []error{nil, errRateLimiter}, 400 * time.Millisecond, ErrStillThere},
	}
	for _, tc := range cases {
		i := 0
		get := func(ctx context.Context) error {
			err := tc.gets[min(i, len(tc.gets)-1)]
			i++
			if errors.Is(err, errRateLimiter) {
				<-ctx.Done()
				return fmt.Errorf("client rate limiter Wait returned an error: %w", ctx.Err())
			}
			return err
		}
		err := DeleteAndWait(context.Background(), func(context.Context) error { return nil }, get, tc.patience)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: DeleteAndWait = %v, want %v", tc.name, err, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := DeleteAndWait(ctx, func(context.Context) error { return nil }, func(context.Context) error { return nil }, time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: DeleteAndWait = %v, want context.Canceled", err)
	}
}

func TestRetryEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	calls := 0
	err := Retry(ctx, func() error { calls++; return apierrors.NewServiceUnavailable("starting") })
	if !apierrors.IsServiceUnavailable(err) || !errors.Is(err, context.DeadlineExceeded) || calls < 2 {
		t.Fatalf("Retry = %v after %d calls; want the last 503 joined with the deadline, after retries", err, calls)
	}
}

func TestWaitUntilDueLooksAgainWhenDue(t *testing.T) {
	// Shorter than the resync: only the named moment can end this wait in time.
	ctx, cancel := context.WithTimeout(context.Background(), resync-time.Second)
	defer cancel()
	var due time.Time
	looks := 0
	err := WaitUntilDue(ctx, func(context.Context) (bool, time.Time, error) {
		looks++
		if due.IsZero() {
			due = time.Now().Add(200 * time.Millisecond)
		}
		return !time.Now().Before(due), due, nil
	})
	if err != nil || looks != 2 {
		t.Fatalf("WaitUntilDue = %v after %d looks; want done at the second look, when due", err, looks)
	}
}

func TestWaitUntilLooksAgainOnceTheWatchIsOpen(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), resync-time.Second)
	defer cancel()
	// The change lands after the first look and before the watch begins, so no event ever reports it.
	firstLook, changed := make(chan struct{}), make(chan struct{})
	looks := 0
	err := WaitUntil(ctx, func(context.Context) (bool, error) {
		looks++
		if looks == 1 {
			close(firstLook)
			return false, nil
		}
		select {
		case <-changed:
			return true, nil
		default:
			return false, nil
		}
	}, func(ctx context.Context) (watch.Interface, error) {
		select {
		case <-firstLook:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		select {
		case <-changed:
		default:
			close(changed)
		}
		return watch.NewFake(), nil
	})
	if err != nil {
		t.Fatalf("WaitUntil = %v after %d looks; want done once the watch is open, before the resync", err, looks)
	}
}
