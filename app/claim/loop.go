// Package claim runs the loop the background workers share: on every tick or nudge, claim as
// much work as there are free slots and run each piece on its own goroutine. It counts the
// pieces in flight per organization and per queue, so that claims can share the slots fairly.
package claim

import (
	"context"
	"log/slog"
	"maps"
	"sync"
	"time"
)

// Piece is one claimed piece of work: the organization it belongs to, the queue it came from
// within the organization (an endpoint, a broadcast, an assistant), and the work itself.
type Piece struct {
	Org, Queue string
	Run        func()
}

// Round is what one claim may take: Free slots, and the pieces under way per organization and
// per queue. Idle says the loop woke on its tick and its last claim found nothing: the time
// to look for work cheaply before claiming (on a nudge there is likely work).
type Round struct {
	Free       int
	Org, Queue map[string]int
	Idle       bool
}

// Loop holds at most Slots pieces of work in flight.
type Loop struct {
	Slots int
	Tick  time.Duration

	once     sync.Once
	wake     chan struct{}
	mu       sync.Mutex
	inFlight int
	org      map[string]int
	queue    map[string]int
}

func (l *Loop) init() {
	l.once.Do(func() {
		l.wake = make(chan struct{}, 1)
		l.org, l.queue = map[string]int{}, map[string]int{}
	})
}

// Nudge asks for a claim now rather than at the next tick (new work, a finished piece).
func (l *Loop) Nudge() {
	l.init()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Run claims until ctx ends, then waits for the work under way. claim is given the round
// (free slots and a copy of what is in flight) and answers at most Free pieces.
func (l *Loop) Run(ctx context.Context, claim func(ctx context.Context, r Round) []Piece) {
	l.init()
	ticker := time.NewTicker(l.Tick)
	defer ticker.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	found := false
	for {
		ticked := false
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			ticked = true
		case <-l.wake:
		}
		r := l.round()
		if r.Free <= 0 {
			continue
		}
		r.Idle = ticked && !found
		work := claim(ctx, r)
		found = len(work) > 0
		l.start(work)
		for _, p := range work {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer l.done(p)
				p.Run()
			}()
		}
		if len(work) == r.Free {
			l.Nudge() // there may be more work than there were free slots
		}
	}
}

func (l *Loop) round() Round {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Round{Free: l.Slots - l.inFlight, Org: maps.Clone(l.org), Queue: maps.Clone(l.queue)}
}

func (l *Loop) start(work []Piece) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight += len(work)
	for _, p := range work {
		l.org[p.Org]++
		l.queue[p.Queue]++
	}
}

func (l *Loop) done(p Piece) {
	l.mu.Lock()
	l.inFlight--
	release(l.org, p.Org)
	release(l.queue, p.Queue)
	l.mu.Unlock()
	l.Nudge()
}

// release counts one piece of key out, forgetting keys with none left.
func release(m map[string]int, key string) {
	if m[key]--; m[key] <= 0 {
		delete(m, key)
	}
}

// Each makes a piece of work of each item a claim took.
func Each[T any](items []T, piece func(T) Piece) []Piece {
	work := make([]Piece, len(items))
	for i, it := range items {
		work[i] = piece(it)
	}
	return work
}

// Failed tells whether a claim failed, and logs why as what unless ctx ended: a claim that a
// shutdown cut short is no failure to report.
func Failed(ctx context.Context, log *slog.Logger, what string, err error) bool {
	if err != nil && ctx.Err() == nil {
		log.Error(what, "err", err)
	}
	return err != nil
}
