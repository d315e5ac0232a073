// Package vcache is a bounded map, least recently used out first, whose entries hold only at
// the version they were read at: what the inbox keeps of pages (app/inboxcache.go) and of
// loaded chats (sqlite/chatcache.go).
package vcache

import (
	"container/list"
	"sync"
)

// Cache is safe for concurrent use.
type Cache[K comparable, V any] struct {
	mu      sync.Mutex
	limit   int // total weight held at most
	held    int
	entries map[K]*list.Element
	lru     *list.List // of *entry, most recently used first
}

type entry[K comparable, V any] struct {
	key     K
	version int64
	value   V
	weight  int
}

// New makes a cache holding at most limit of weight.
func New[K comparable, V any](limit int) *Cache[K, V] {
	return &Cache[K, V]{limit: limit, entries: map[K]*list.Element{}, lru: list.New()}
}

// Get answers the value stored for key if it was stored at version.
func (c *Cache[K, V]) Get(key K, version int64) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok || el.Value.(*entry[K, V]).version != version {
		var zero V
		return zero, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*entry[K, V]).value, true
}

// Put stores value, read at version and counting weight against the limit, in place of the
// key's previous entry, and drops the least recently used ones beyond the limit. A value
// heavier than the whole limit is not kept. (Versions are compared for equality only: a
// read on an older snapshot may replace a newer value, and the next Get reads again.)
func (c *Cache[K, V]) Put(key K, version int64, value V, weight int) {
	if weight > c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		e := el.Value.(*entry[K, V])
		c.held += weight - e.weight
		e.version, e.value, e.weight = version, value, weight
		c.lru.MoveToFront(el)
	} else {
		c.entries[key] = c.lru.PushFront(&entry[K, V]{key: key, version: version, value: value, weight: weight})
		c.held += weight
	}
	for c.held > c.limit {
		el := c.lru.Back()
		e := el.Value.(*entry[K, V])
		c.lru.Remove(el)
		delete(c.entries, e.key)
		c.held -= e.weight
	}
}

// Len is the number of entries held.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Held is the total weight held.
func (c *Cache[K, V]) Held() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held
}
