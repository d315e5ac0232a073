// Package claim runs the loop the background workers share: on every tick or nudge, claim as
// much work as there are free slots and run each piece on its own goroutine.
package claim

import (
	"context"
	"sync"
	"time"
)

// Loop holds at most Slots pieces of work in flight.
type Loop struct {
	Slots int
	Tick  time.Duration

	once     sync.Once
	wake     chan struct{}
	mu       sync.Mutex
	inFlight int
}

func (l *Loop) init() { l.once.Do(func() { l.wake = make(chan struct{}, 1) }) }

// Nudge asks for a claim now rather than at the next tick (new work, a finished piece).
func (l *Loop) Nudge() {
	l.init()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Run claims until ctx ends, then waits for the work under way. claim is given the number of
// free slots and answers at most that many pieces of work.
func (l *Loop) Run(ctx context.Context, claim func(ctx context.Context, free int) []func()) {
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
		l.mu.Lock()
		free := l.Slots - l.inFlight
		l.mu.Unlock()
		if free <= 0 {
			continue
		}
		work := claim(ctx, free)
		l.mu.Lock()
		l.inFlight += len(work)
		l.mu.Unlock()
		for _, run := range work {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer l.done()
				run()
			}()
		}
		if len(work) == free {
			l.Nudge() // there may be more work than there were free slots
		}
	}
}

func (l *Loop) done() {
	l.mu.Lock()
	l.inFlight--
	l.mu.Unlock()
	l.Nudge()
}
