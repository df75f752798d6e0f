package ttlcache

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestGet(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	c := New[string, int](time.Minute)
	c.now = func() time.Time { return clock }
	calls := 0
	find := func(v int, err error) func() (int, error) {
		return func() (int, error) { calls++; return v, err }
	}
	steps := []struct {
		name      string
		advance   time.Duration
		forget    bool
		find      func() (int, error)
		want      int
		wantErr   bool
		wantCalls int
	}{
		{name: "first ask finds", find: find(1, nil), want: 1, wantCalls: 1},
		{name: "within the TTL, remembered", advance: 59 * time.Second, find: find(2, nil), want: 1, wantCalls: 1},
		{name: "at the TTL, found again", advance: time.Second, find: find(3, nil), want: 3, wantCalls: 2},
		{name: "an error is returned", advance: time.Minute, find: find(0, errors.New("down")), wantErr: true, wantCalls: 3},
		{name: "and not remembered", find: find(4, nil), want: 4, wantCalls: 4},
		{name: "forgotten, found again within the TTL", forget: true, find: find(5, nil), want: 5, wantCalls: 5},
	}
	for _, s := range steps {
		clock = clock.Add(s.advance)
		if s.forget {
			c.Forget("k")
		}
		got, err := c.Get("k", s.find)
		if (err != nil) != s.wantErr || got != s.want || calls != s.wantCalls {
			t.Errorf("%s: Get = %d, %v after %d finds; want %d, error %v after %d", s.name, got, err, calls, s.want, s.wantErr, s.wantCalls)
		}
	}
	if got, _ := c.Get("other", find(9, nil)); got != 9 {
		t.Errorf("another key shares the first's value: %d", got)
	}
}

func TestGetSharesAFindUnderWay(t *testing.T) {
	t.Parallel()
	c := New[string, int](time.Minute)
	release := make(chan struct{})
	var calls atomic.Int32
	find := func() (int, error) { calls.Add(1); <-release; return 7, nil }

	started := make(chan struct{})
	go func() { close(started); _, _ = c.Get("k", find) }()
	<-started
	for c.pending("k") == nil {
		runtime.Gosched()
	}
	var wg sync.WaitGroup
	got := make([]int, 5)
	for i := range got {
		wg.Go(func() { got[i], _ = c.Get("k", func() (int, error) { calls.Add(1); return 8, nil }) })
	}
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("finds: %d, want 1", n)
	}
	for i, v := range got {
		if v != 7 {
			t.Errorf("caller %d got %d, want the find under way's 7", i, v)
		}
	}
}

func TestForgetDuringAFind(t *testing.T) {
	t.Parallel()
	c := New[string, int](time.Minute)
	release := make(chan struct{})
	done := make(chan int)
	go func() { v, _ := c.Get("k", func() (int, error) { <-release; return 1, nil }); done <- v }()
	for c.pending("k") == nil {
		runtime.Gosched()
	}
	c.Forget("k")
	if v, _ := c.Get("k", func() (int, error) { return 2, nil }); v != 2 {
		t.Errorf("Get after Forget = %d, want a new find's 2", v)
	}
	close(release)
	if v := <-done; v != 1 {
		t.Errorf("the earlier caller got %d, want its own find's 1", v)
	}
	if v, _ := c.Get("k", func() (int, error) { return 3, nil }); v != 2 {
		t.Errorf("remembered %d, want 2: the find begun before the Forget must not overwrite it", v)
	}
}

// pending is the find under way for k, for tests.
func (c *Cache[K, V]) pending(k K) *call[V] {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inflight[k]
}
