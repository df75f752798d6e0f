package ttlcache

import (
	"errors"
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
