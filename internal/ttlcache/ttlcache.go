// Package ttlcache remembers answers for a while, so that a plan or refresh of many objects asks a cluster once per
// question rather than once per object.
package ttlcache

import (
	"sync"
	"time"
)

// Cache maps keys to values found no longer ago than its TTL. Errors are not remembered: the next Get asks again.
type Cache[K comparable, V any] struct {
	ttl time.Duration
	now func() time.Time

	mu sync.Mutex
	m  map[K]entry[V]
}

type entry[V any] struct {
	v  V
	at time.Time
}

// New makes a cache whose values stay for ttl.
func New[K comparable, V any](ttl time.Duration) *Cache[K, V] {
	return &Cache[K, V]{ttl: ttl, now: time.Now, m: map[K]entry[V]{}}
}

// Get returns the value remembered for k, or finds it with find and remembers it when find succeeds. Two callers
// that miss at once both call find: the answers are reads, and the last one stays.
func (c *Cache[K, V]) Get(k K, find func() (V, error)) (V, error) {
	c.mu.Lock()
	e, ok := c.m[k]
	c.mu.Unlock()
	if ok && c.now().Sub(e.at) < c.ttl {
		return e.v, nil
	}
	v, err := find()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	c.m[k] = entry[V]{v, c.now()}
	c.mu.Unlock()
	return v, nil
}

// Forget drops what is remembered for k, so that the next Get finds it again.
func (c *Cache[K, V]) Forget(k K) {
	c.mu.Lock()
	delete(c.m, k)
	c.mu.Unlock()
}
