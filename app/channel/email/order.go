package email

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// order keeps the mails of one sender to one integration in the order the listener accepted
// them while the inbound worker takes several mails at once: a reply accepted after its
// parent's 250 threads into the parent's chat only if the parent is stored first. The
// listener notes each mail before it queues it; Take waits while an earlier mail of the same
// sender is still to be taken in, and forgets its own when done (taken in or failed: a retry
// comes back later, out of order, as after a restart, when nothing is noted).
type order struct {
	mu      sync.Mutex
	pending map[string][]noted // by sender key: the mails still to be taken in
	changed chan struct{}      // closed and replaced whenever a mail is forgotten
	last    atomic.Int64
}

// orderStale is how long a noted mail holds the later ones back at most: one the worker
// dropped without taking it (its integration went) is forgotten by then. orderWait bounds
// one mail's wait: past it the mail is taken in anyway (threading may then miss, a stall
// never lasts).
const (
	orderStale = 2 * time.Minute
	orderWait  = 30 * time.Second
)

// next is the sequence number of a mail being accepted: increasing, and larger than any of
// an earlier process (it starts at the clock's nanoseconds).
func (o *order) next() int64 {
	o.last.CompareAndSwap(0, time.Now().UnixNano())
	return o.last.Add(1)
}

type noted struct {
	seq int64
	at  time.Time
}

func orderKey(deploymentID, from string) string {
	return deploymentID + "\x00" + strings.ToLower(from)
}

// note records a mail about to be queued.
func (o *order) note(key string, seq int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pending == nil {
		o.pending, o.changed = map[string][]noted{}, make(chan struct{})
	}
	o.pending[key] = append(o.pending[key], noted{seq: seq, at: time.Now()})
}

// forget drops a mail from the pending ones and wakes the mails waiting.
func (o *order) forget(key string, seq int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	list := o.pending[key]
	for i, n := range list {
		if n.seq == seq {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(o.pending, key)
	} else {
		o.pending[key] = list
	}
	if o.changed != nil {
		close(o.changed)
		o.changed = make(chan struct{})
	}
}

// wait blocks while a mail of key noted before seq (and not stale) is still pending.
func (o *order) wait(ctx context.Context, key string, seq int64) error {
	stale := time.Now().Add(-orderStale)
	bound := time.NewTimer(orderWait)
	defer bound.Stop()
	for {
		o.mu.Lock()
		earlier := false
		for _, n := range o.pending[key] {
			earlier = earlier || (n.seq < seq && n.at.After(stale))
		}
		changed := o.changed
		o.mu.Unlock()
		if !earlier {
			return nil
		}
		select {
		case <-changed:
		case <-bound.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// takeShare is how many mails of one integration the worker takes in at once. Taking a mail
// is parsing (CPU) and one write on the store's single writer, where the listener's queue
// writes wait behind it: with the worker's whole share of an organization (6) taking one
// integration's mail, acceptance at 100 mails/s had p50 50-88 ms and p99 220 ms-1 s on the
// shared machine; with 2, p50 10-20 ms and p99 125-140 ms, the worker keeping up
// (bench/email). More gains nothing: the writer is one.
const takeShare = 2

// shares holds the integrations' take slots.
type shares struct {
	mu    sync.Mutex
	slots map[string]chan struct{}
}

// acquire takes one of key's slots, waiting while they are all busy.
func (s *shares) acquire(ctx context.Context, key string) (release func(), err error) {
	s.mu.Lock()
	if s.slots == nil {
		s.slots = map[string]chan struct{}{}
	}
	ch := s.slots[key]
	if ch == nil {
		ch = make(chan struct{}, takeShare)
		s.slots[key] = ch
	}
	s.mu.Unlock()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
