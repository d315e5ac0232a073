// Package claim runs the loop the background workers share: on every tick or nudge, claim as
// much work as there are free slots and run each piece on its own goroutine. It counts the
// pieces in flight per organization and per queue, so that claims can share the slots fairly.
package claim

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"wsapi/app"
)

// Piece is one claimed piece of work: the organization it belongs to, the queue it came from
// within the organization (an endpoint, a broadcast, an assistant), and the work itself.
// Release hands back a piece claimed ahead (Loop.Ahead) that never started because the loop
// stopped; nil when the loop claims nothing ahead.
type Piece struct {
	Org, Queue string
	Run        func()
	Release    func()
}

// Round is what one claim may take: Free pieces (free slots, plus the room left ahead), and
// the pieces claimed and not finished (running or queued) per organization and per queue.
// Idle says the loop woke on its tick and its last claim found nothing: the time to look for
// work cheaply before claiming (on a nudge there is likely work).
type Round struct {
	Free       int
	Org, Queue map[string]int
	Idle       bool
}

// Loop runs at most Slots pieces of work at once.
//
// Ahead (at most Slots; 0 by default) lets it hold that many more pieces claimed and queued,
// so that a slot that frees starts a queued piece at once instead of waiting for the next
// claim. Queued pieces count in Round.Org and Round.Queue like running ones: the caps a claim
// applies hold for whatever of them starts. A free slot takes the queued piece of the
// organization with the fewest pieces running, within it of the queue with the fewest, the
// oldest on a tie: as the claim's own pick does, so a busy organization's queued pieces do
// not hold back another's. A piece may have to bound its own wait (the webhook dispatcher
// hands back a job queued too long). While every slot is busy and at least half of Ahead is
// queued, a nudge does not claim (a tick still does): the next piece to finish nudges again,
// so claims come fewer and bigger. When the loop stops, queued pieces are released
// (Piece.Release), never run.
type Loop struct {
	Slots int
	Ahead int
	Tick  time.Duration
	// Log takes the panic of a piece (runPiece); nil: slog.Default().
	Log *slog.Logger

	once    sync.Once
	wake    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	running int
	queued  []Piece
	stopped bool
	quit    <-chan struct{} // Run's context's Done: a slot takes no queued piece after it
	org     map[string]int  // claimed and not finished, running or queued
	queue   map[string]int
	runOrg  map[string]int // running only
	runQ    map[string]int
	// rounds counts the claims begun; idleAt is the number of the last one that ended with
	// nothing claimed, running or queued; roundEnd is closed (and replaced) as each ends.
	// WaitIdle reads them.
	rounds   uint64
	idleAt   uint64
	roundEnd chan struct{}
	// wakes are the times NudgeAfter asked for, earliest first; wakeTimer fires at the first.
	wakes     []time.Time
	wakeTimer *time.Timer
}

func (l *Loop) init() {
	l.once.Do(func() {
		l.wake = make(chan struct{}, 1)
		l.roundEnd = make(chan struct{})
		l.org, l.queue = map[string]int{}, map[string]int{}
		l.runOrg, l.runQ = map[string]int{}, map[string]int{}
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

// Run claims until ctx ends, then releases the queued pieces and waits for the work under
// way. claim is given the round (room and a copy of what is claimed) and answers at most
// Free pieces.
func (l *Loop) Run(ctx context.Context, claim func(ctx context.Context, r Round) []Piece) {
	l.init()
	l.quit = ctx.Done()
	ticker := time.NewTicker(l.Tick)
	defer ticker.Stop()
	defer l.wg.Wait()
	defer l.stop()
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
		if r.Free <= 0 || (!ticked && l.queueFull()) {
			continue
		}
		r.Idle = ticked && !found
		n := l.begin()
		work := claim(ctx, r)
		found = len(work) > 0
		l.start(work)
		// A round that began with pieces in flight may have left due work for want of room
		// (an organization's share full): it proves nothing idle, even if they all finished
		// while it claimed.
		l.end(n, found || len(r.Org) > 0)
		if len(work) == r.Free {
			l.Nudge() // there may be more work than there was room
		}
	}
}

// begin numbers a claim round.
func (l *Loop) begin() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rounds++
	return l.rounds
}

// end records that round n is over, idle when it had all the room, claimed nothing (busy
// false) and nothing is running or queued, and wakes WaitIdle.
func (l *Loop) end(n uint64, busy bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !busy && l.running == 0 && len(l.queued) == 0 {
		l.idleAt = n
	}
	close(l.roundEnd)
	l.roundEnd = make(chan struct{})
}

// WaitIdle nudges the loop and waits until a claim that began after the call found nothing
// to do while no piece ran or waited: whatever was due when WaitIdle was called has been
// claimed and finished. A test asserting that nothing happens (work that is not due yet, a
// queue a rule leaves alone) waits for that instead of sleeping through ticks. It answers
// ctx's error if the loop does not fall idle before ctx ends (work keeps coming, or the loop
// is not running).
func (l *Loop) WaitIdle(ctx context.Context) error {
	l.init()
	l.mu.Lock()
	after := l.rounds
	l.mu.Unlock()
	for {
		l.Nudge()
		l.mu.Lock()
		idle, ended := l.idleAt > after, l.roundEnd
		l.mu.Unlock()
		if idle {
			return nil
		}
		select {
		case <-ended:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (l *Loop) round() Round {
	l.mu.Lock()
	defer l.mu.Unlock()
	room := l.Slots + min(l.Ahead, l.Slots) - l.running - len(l.queued)
	return Round{Free: room, Org: maps.Clone(l.org), Queue: maps.Clone(l.queue)}
}

// queueFull tells that every slot is busy and at least half the pieces claimed ahead are
// still queued: a claim can wait for more room (the next piece to finish nudges again), so
// that fewer, bigger claims do the same work.
func (l *Loop) queueFull() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.running == l.Slots && len(l.queued) > 0 && len(l.queued) >= min(l.Ahead, l.Slots)/2
}

// start runs what a claim took on the free slots and queues the rest.
func (l *Loop) start(work []Piece) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range work {
		l.org[p.Org]++
		l.queue[p.Queue]++
		if l.running == l.Slots {
			l.queued = append(l.queued, p)
			continue
		}
		l.running++
		l.runOrg[p.Org]++
		l.runQ[p.Queue]++
		l.wg.Add(1)
		go l.work(p)
	}
}

// work runs p, then the queued pieces as long as there are any: the slot passes straight
// from one piece to the next.
func (l *Loop) work(p Piece) {
	defer l.wg.Done()
	for more := true; more; {
		l.runPiece(p)
		p, more = l.next(p)
		l.Nudge()
	}
}

// runPiece runs p; a panic fails that piece alone (its slot goes on with the next), never the
// process. The workers' pieces recover their own work first: this is the last guard.
func (l *Loop) runPiece(p Piece) {
	err := app.Safely(func() error { p.Run(); return nil })
	if err != nil {
		log := l.Log
		if log == nil {
			log = slog.Default()
		}
		app.LogFailure(log, "a piece of background work panicked", err, "org", p.Org, "queue", p.Queue)
	}
}

// next counts p out and answers the queued piece to run in its slot, if any (none once the
// loop has stopped).
func (l *Loop) next(p Piece) (Piece, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forget(p)
	release(l.runOrg, p.Org)
	release(l.runQ, p.Queue)
	if l.stopped || len(l.queued) == 0 || l.quitting() {
		l.running--
		return Piece{}, false
	}
	i := l.fairest()
	next := l.queued[i]
	l.queued = slices.Delete(l.queued, i, i+1) // zeroes the freed end: no closure kept
	l.runOrg[next.Org]++
	l.runQ[next.Queue]++
	return next, true
}

// quitting tells that Run's context has ended: the queued pieces are about to be released.
func (l *Loop) quitting() bool {
	select {
	case <-l.quit:
		return true
	default:
		return false
	}
}

// fairest is the index of the queued piece to start: its organization has the fewest pieces
// running, then its queue; the oldest on a tie.
func (l *Loop) fairest() int {
	best := 0
	for i, p := range l.queued[1:] {
		b := l.queued[best]
		o, bo := l.runOrg[p.Org], l.runOrg[b.Org]
		if o < bo || (o == bo && l.runQ[p.Queue] < l.runQ[b.Queue]) {
			best = i + 1
		}
	}
	return best
}

// stop releases the queued pieces: no slot takes them any more.
func (l *Loop) stop() {
	l.mu.Lock()
	l.stopped = true
	l.stopWakesLocked()
	queued := l.queued
	l.queued = nil
	for _, p := range queued {
		l.forget(p)
	}
	l.mu.Unlock()
	for _, p := range queued {
		if p.Release != nil {
			p.Release()
		}
	}
}

func (l *Loop) forget(p Piece) {
	release(l.org, p.Org)
	release(l.queue, p.Queue)
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
