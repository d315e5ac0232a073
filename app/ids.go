package app

import (
	"context"
	"crypto/rand"
	"slices"
	"sync"
	"time"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// RandomBase62 returns n characters drawn uniformly from [0-9A-Za-z] by crypto/rand.
func RandomBase62(n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, n+n/2+8)
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			panic("app: crypto/rand failed: " + err.Error())
		}
		for _, b := range buf {
			// 248 = 4*62: bytes at or above it are dropped so every character is equally likely.
			if b < 248 && len(out) < n {
				out = append(out, base62[b%62])
			}
		}
	}
	return string(out)
}

// NewID returns prefix + "_" + 20 base62 characters, so an id tells its type at a glance:
// 6 for the second it was made (base62 in ASCII order, so ids sort by time) and 14 drawn at
// random (about 83 bits, over the 80 that DESIGN.md asks for). The time prefix puts the ids
// of new rows next to each other in every index keyed by them: inserts write the index's
// last pages instead of a random page each (with fully random ids, each new contact wrote
// four pages of its own to the WAL), as ULIDs and KSUIDs do. The second is not hidden:
// anyone who can read an id can tell when it was made.
func NewID(prefix string) string {
	return prefix + "_" + idTime(time.Now().Unix()) + RandomBase62(14)
}

// idTime is the second s in 6 base62 digits, most significant first (until the year 3770).
func idTime(s int64) string {
	var b [6]byte
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = base62[s%62]
		s /= 62
	}
	return string(b[:])
}

// Clock gives the current time. Services take one so tests move time instead of sleeping.
type Clock interface {
	Now() time.Time
}

// SystemClock is the real wall clock.
type SystemClock struct{}

// Now returns the current time in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// TimeFormat is RFC 3339 in UTC with milliseconds, the one timestamp form of the API.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// FormatTime renders t in the API's timestamp form.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// ManualClock is a Clock that moves only when told; tests use it to cross retry delays,
// retention periods and rate-limit windows without sleeping.
type ManualClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []clockWaiter
	moved   []func()
}

// NewManualClock starts a manual clock at t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{now: t.UTC()} }

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.moveLocked()
}

// Set moves the clock to t.
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t.UTC()
	c.moveLocked()
}

// OnMove registers f to run after every Advance and Set. Test wiring nudges the workers with
// it: work that came due because the clock moved (a retry, a lapsed lease) starts at once,
// so the workers need no fast tick to notice it.
func (c *ManualClock) OnMove(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.moved = append(c.moved, f)
}

// moveLocked fires the waiters whose time has come, unlocks c.mu, then runs the OnMove
// hooks (outside the lock: a hook may read the clock).
func (c *ManualClock) moveLocked() {
	c.fire()
	hooks := slices.Clone(c.moved)
	c.mu.Unlock()
	for _, f := range hooks {
		f()
	}
}

// clockWaiter is an After of the manual clock, fired when the clock reaches at.
type clockWaiter struct {
	at time.Time
	ch chan time.Time
}

// After answers a channel that receives the clock's time once it has been moved d past
// now, so code that waits (retry backoff) waits in the test's time, not the wall's.
func (c *ManualClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := clockWaiter{at: c.now.Add(d), ch: make(chan time.Time, 1)}
	c.waiters = append(c.waiters, w)
	c.fire()
	return w.ch
}

// Waiters tells how many Afters wait for the clock to move, so a test knows when to move it.
func (c *ManualClock) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

// fire sends to the waiters whose time has come; c.mu is held.
func (c *ManualClock) fire() {
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
