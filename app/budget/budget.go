package budget

import (
	"fmt"
	"sync"
)

// Key names one holder of a kind: {"key", "key_123"}, {"ip", "203.0.113.7"}.
type Key struct {
	Kind  string
	Value string
}

// FullError is the refusal of Acquire: the cap that is reached, the server-wide one when
// Kind is "".
type FullError struct {
	Kind  string
	Limit int
}

func (e *FullError) Error() string {
	if e.Kind == "" {
		return fmt.Sprintf("budget: all %d slots of the server are held", e.Limit)
	}
	return fmt.Sprintf("budget: %d slots per %s are held", e.Limit, e.Kind)
}

// Budget is safe for concurrent use. The zero value is not usable: make one with New.
type Budget struct {
	mu     sync.Mutex
	total  int            // 0: no server-wide cap
	limits map[string]int // per kind; a kind without one (or 0) is counted, not capped
	held   int
	counts map[Key]int
}

// New makes a budget of total slots (0: no server-wide cap) with a cap per kind.
func New(total int, limits map[string]int) *Budget {
	b := &Budget{total: total, limits: map[string]int{}, counts: map[Key]int{}}
	for kind, n := range limits {
		b.limits[kind] = n
	}
	return b
}

// SetLimit caps the slots one holder of kind may have (0: none), for a kind another part
// of the server brings (the widget's sessions) after the budget was made.
func (b *Budget) SetLimit(kind string, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.limits[kind] = n
}

// Acquire takes one slot under every key, or none when any cap is reached (a *FullError).
// The release it answers gives them back; calling it again does nothing.
func (b *Budget) Acquire(keys ...Key) (release func(), err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.total > 0 && b.held >= b.total {
		return nil, &FullError{Limit: b.total}
	}
	for _, k := range keys {
		if n := b.limits[k.Kind]; n > 0 && b.counts[k] >= n {
			return nil, &FullError{Kind: k.Kind, Limit: n}
		}
	}
	b.held++
	for _, k := range keys {
		b.counts[k]++
	}
	var once sync.Once
	return func() { once.Do(func() { b.release(keys) }) }, nil
}

func (b *Budget) release(keys []Key) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held--
	for _, k := range keys {
		if b.counts[k]--; b.counts[k] <= 0 {
			delete(b.counts, k) // a map of every holder ever seen would only grow
		}
	}
}

// Held is the number of slots held in all.
func (b *Budget) Held() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held
}

// HeldBy is the number of slots one holder has.
func (b *Budget) HeldBy(k Key) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.counts[k]
}

// The kinds of holder the server's streams are counted under. Routes of other callers (the
// widget's visitors) bring kinds of their own with SetLimit; KindIP is shared, so one address
// is capped across every kind of stream it opens.
const (
	KindKey    = "key"    // an API key's id
	KindMember = "member" // a member's id
	KindIP     = "ip"     // a client IP (http.trusted_proxies decide which)
)
