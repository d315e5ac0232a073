package clock

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Clock gives the current time. Services take one so tests move time instead of sleeping.
type Clock interface {
	Now() time.Time
}

// System is the real wall clock.
type System struct{}

// Now returns the current time in UTC.
func (System) Now() time.Time { return time.Now().UTC() }

// Manual is a Clock that moves only when told; tests use it to cross retry delays,
// retention periods and rate-limit windows without sleeping.
type Manual struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	moved   []func()
}

// NewManual starts a manual clock at t.
func NewManual(t time.Time) *Manual { return &Manual{now: t.UTC()} }

// Now returns the clock's time.
func (c *Manual) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Manual) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.moveLocked()
}

// Set moves the clock to t.
func (c *Manual) Set(t time.Time) {
	c.mu.Lock()
	c.now = t.UTC()
	c.moveLocked()
}

// OnMove registers f to run after every Advance and Set. Test wiring nudges the workers with
// it: work that came due because the clock moved (a retry, a lapsed lease) starts at once,
// so the workers need no fast tick to notice it.
func (c *Manual) OnMove(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.moved = append(c.moved, f)
}

// moveLocked fires the waiters whose time has come, unlocks c.mu, then runs the OnMove
// hooks (outside the lock: a hook may read the clock).
func (c *Manual) moveLocked() {
	c.fire()
	hooks := slices.Clone(c.moved)
	c.mu.Unlock()
	for _, f := range hooks {
		f()
	}
}

// waiter is an After of the manual clock, fired when the clock reaches at.
type waiter struct {
	at time.Time
	ch chan time.Time
}

// After answers a channel that receives the clock's time once it has been moved d past
// now, so code that waits (retry backoff) waits in the test's time, not the wall's.
func (c *Manual) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := waiter{at: c.now.Add(d), ch: make(chan time.Time, 1)}
	c.waiters = append(c.waiters, w)
	c.fire()
	return w.ch
}

// Waiters tells how many Afters wait for the clock to move, so a test knows when to move it.
func (c *Manual) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

// fire sends to the waiters whose time has come; c.mu is held.
func (c *Manual) fire() {
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- c.now
	}
	c.waiters = kept
}

// Sleep waits d on clock (on the manual clock, until a test moves it past d) or until ctx
// ends, which it reports.
func Sleep(ctx context.Context, clock Clock, d time.Duration) error {
	var fired <-chan time.Time
	if a, ok := clock.(interface {
		After(time.Duration) <-chan time.Time
	}); ok {
		fired = a.After(d)
	} else {
		t := time.NewTimer(d)
		defer t.Stop()
		fired = t.C
	}
	select {
	case <-fired:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
