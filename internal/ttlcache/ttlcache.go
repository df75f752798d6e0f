// Package ttlcache remembers answers for a while, so that a plan or refresh of many objects asks a cluster once per
// question rather than once per object.
package ttlcache

import (
	"errors"
	"sync"
	"time"
)

// Cache maps keys to values found no longer ago than its TTL. Errors are not remembered: the next Get asks again.
type Cache[K comparable, V any] struct {
	ttl time.Duration
	now func() time.Time

	mu       sync.Mutex
	m        map[K]entry[V]
	inflight map[K]*call[V]
}

type entry[V any] struct {
	v  V
	at time.Time
}

// call is a find under way, which callers that miss meanwhile wait for instead of asking again: Terraform reads
// ten resources at once, and each would otherwise send the same request.
type call[V any] struct {
	done chan struct{}
	v    V
	err  error
}

// New makes a cache whose values stay for ttl.
func New[K comparable, V any](ttl time.Duration) *Cache[K, V] {
	return &Cache[K, V]{ttl: ttl, now: time.Now, m: map[K]entry[V]{}, inflight: map[K]*call[V]{}}
}

// Get returns the value remembered for k, or finds it with find and remembers it when find succeeds. Callers that
// miss while a find for k is under way share its answer; when that find fails (its caller's context may have ended),
// each finds for itself.
func (c *Cache[K, V]) Get(k K, find func() (V, error)) (V, error) {
	c.mu.Lock()
	if e, ok := c.m[k]; ok && c.now().Sub(e.at) < c.ttl {
		c.mu.Unlock()
		return e.v, nil
	}
	if cl := c.inflight[k]; cl != nil {
		c.mu.Unlock()
		<-cl.done
		if cl.err == nil {
			return cl.v, nil
		}
		return find()
	}
	cl := &call[V]{done: make(chan struct{}), err: errFindPanicked}
	c.inflight[k] = cl
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		// A Forget during the find leaves its answer unremembered: it may predate what the Forget was for.
		if c.inflight[k] == cl {
			delete(c.inflight, k)
			if cl.err == nil {
				c.m[k] = entry[V]{cl.v, c.now()}
			}
		}
		c.mu.Unlock()
		close(cl.done)
	}()
	cl.v, cl.err = find()
	return cl.v, cl.err
}

// errFindPanicked is what waiters see of a find that panicked: they find for themselves.
var errFindPanicked = errors.New("ttlcache: the find under way did not return")

// Forget drops what is remembered for k, so that the next Get finds it again, even while a find begun before is
// still under way.
func (c *Cache[K, V]) Forget(k K) {
	c.mu.Lock()
	delete(c.m, k)
	delete(c.inflight, k)
	c.mu.Unlock()
}
