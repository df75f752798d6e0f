package kube

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestListShare(t *testing.T) {
	t.Parallel()
	var s ListShare[int]
	lists, release, list := countedList(1, 2)
	key := ShareKey{NS: "default"}
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got, err := s.Get(context.Background(), key, list); err != nil || len(got) != 2 {
				t.Errorf("get = %v, %v", got, err)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := lists.Load(); n != 1 {
		t.Errorf("20 concurrent Reads made %d LISTs, want 1", n)
	}
	_, _ = s.Get(context.Background(), key, list)
	if n := lists.Load(); n != 1 {
		t.Errorf("a Read within the window made a LIST of its own (%d)", n)
	}
	// A write drops the shared answer: the next Read sees the namespace after it.
	s.Forget(key)
	_, _ = s.Get(context.Background(), key, list)
	if n := lists.Load(); n != 2 {
		t.Errorf("after forget: %d LISTs, want 2", n)
	}
	// A failed LIST is not shared with later Reads.
	failing := func(context.Context) ([]int, error) { lists.Add(1); return nil, errors.New("boom") }
	other := ShareKey{NS: "other"}
	if _, err := s.Get(context.Background(), other, failing); err == nil {
		t.Error("the failing LIST's error did not reach its caller")
	}
	_, _ = s.Get(context.Background(), other, list)
	if n := lists.Load(); n != 4 {
		t.Errorf("after a failed LIST: %d LISTs, want a new one (4)", n)
	}
	// A Read that gives up does not cancel the LIST the others wait for.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := s.Get(ctx, ShareKey{NS: "third"}, func(ctx context.Context) ([]int, error) { return []int{3}, ctx.Err() })
	if err != nil || len(got) != 1 {
		t.Errorf("LIST under a cancelled Read = %v, %v; want it to run to its end", got, err)
	}
}

// A LIST started ahead of the Reads is the one they get; a Start while one serves makes none.
func TestListShareStart(t *testing.T) {
	t.Parallel()
	var s ListShare[int]
	lists, release, list := countedList(7)
	key := ShareKey{NS: "default"}
	s.Start(context.Background(), key, list)
	s.Start(context.Background(), key, list)
	done := make(chan []int)
	go func() {
		got, _ := s.Get(context.Background(), key, list)
		done <- got
	}()
	close(release)
	if got := <-done; len(got) != 1 || got[0] != 7 {
		t.Errorf("Get after Start = %v, want the started LIST's [7]", got)
	}
	s.Start(context.Background(), key, list)
	if n := lists.Load(); n != 1 {
		t.Errorf("Start, Start, Get, Start made %d LISTs, want 1", n)
	}
}

// countedList is a LIST that counts its calls and answers items once release is closed.
func countedList(items ...int) (*atomic.Int32, chan struct{}, func(context.Context) ([]int, error)) {
	var lists atomic.Int32
	release := make(chan struct{})
	return &lists, release, func(context.Context) ([]int, error) {
		lists.Add(1)
		<-release
		return items, nil
	}
}
