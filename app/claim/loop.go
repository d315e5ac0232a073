// Package claim runs the loop the background workers share: on every tick or nudge, claim as
// much work as there are free slots and run each piece on its own goroutine. It counts the
// pieces in flight per organization and per queue, so that claims can share the slots fairly.
package claim

import (
	"context"
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

// InFlight is how many pieces are under way, per organization and per queue.
type InFlight struct {
	Org, Queue map[string]int
}

// Loop holds at most Slots pieces of work in flight.
type Loop struct {
	Slots int
	Tick  time.Duration

	once     sync.Once
	wake     chan struct{}
	mu       sync.Mutex
	inFlight int
	busy     InFlight
}

func (l *Loop) init() {
	l.once.Do(func() {
		l.wake = make(chan struct{}, 1)
		l.busy = InFlight{Org: map[string]int{}, Queue: map[string]int{}}
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

// Run claims until ctx ends, then waits for the work under way. claim is given the number of
// free slots and a copy of what is in flight, and answers at most that many pieces.
func (l *Loop) Run(ctx context.Context, claim func(ctx context.Context, free int, busy InFlight) []Piece) {
	l.init()
	ticker := time.NewTicker(l.Tick)
	defer ticker.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		case <-l.wake:
		}
		free, busy := l.snapshot()
		if free <= 0 {
			continue
		}
		work := claim(ctx, free, busy)
		l.start(work)
		for _, p := range work {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer l.done(p)
				p.Run()
			}()
		}
		if len(work) == free {
			l.Nudge() // there may be more work than there were free slots
		}
	}
}

func (l *Loop) snapshot() (int, InFlight) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Slots - l.inFlight, InFlight{Org: maps.Clone(l.busy.Org), Queue: maps.Clone(l.busy.Queue)}
}

func (l *Loop) start(work []Piece) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight += len(work)
	for _, p := range work {
		l.busy.Org[p.Org]++
		l.busy.Queue[p.Queue]++
	}
}

func (l *Loop) done(p Piece) {
	l.mu.Lock()
	l.inFlight--
	release(l.busy.Org, p.Org)
	release(l.busy.Queue, p.Queue)
	l.mu.Unlock()
	l.Nudge()
}

// release counts one piece of key out, forgetting keys with none left.
func release(m map[string]int, key string) {
	if m[key]--; m[key] <= 0 {
		delete(m, key)
	}
}
