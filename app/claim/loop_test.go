package claim_test

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"wsapi/app/claim"
)

// The loop never runs more than Slots pieces at once, claims again as pieces finish (without
// waiting for the tick), tells each claim what is in flight per organization and queue, and
// waits for the pieces under way when stopped.
func TestLoopRespectsSlotsAndDrains(t *testing.T) {
	const slots, total = 3, 20
	var mu sync.Mutex
	left := total
	var running, peak, finished atomic.Int32
	var badBusy atomic.Value
	l := &claim.Loop{Slots: slots, Tick: time.Hour}
	claimFn := func(_ context.Context, r claim.Round) []claim.Piece {
		mu.Lock()
		defer mu.Unlock()
		if n := slots - r.Free; r.Org["org_a"] != n || r.Queue["q_a"] != n {
			badBusy.Store(r)
		}
		n := min(r.Free, left)
		left -= n
		work := make([]claim.Piece, n)
		for i := range work {
			work[i] = claim.Piece{Org: "org_a", Queue: "q_a", Run: func() {
				r := running.Add(1)
				for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
				}
				time.Sleep(2 * time.Millisecond)
				running.Add(-1)
				finished.Add(1)
			}}
		}
		return work
	}
	ctx, cancel := context.WithCancel(context.Background())
	wait := runLoop(ctx, l, claimFn)
	l.Nudge()
	deadline := time.Now().Add(5 * time.Second)
	for finished.Load() < total && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	wait()
	if finished.Load() != total || peak.Load() > slots || peak.Load() < 2 {
		t.Fatalf("finished %d of %d, peak %d (slots %d)", finished.Load(), total, peak.Load(), slots)
	}
	if b := badBusy.Load(); b != nil {
		t.Fatalf("a claim was told %+v in flight, not the pieces under way", b)
	}
}

// A nudge (new work, a finished piece) claims at once and is not Idle; a tick after a claim
// that found nothing is Idle, so the claim may look for work cheaply first.
func TestLoopMarksIdleTicks(t *testing.T) {
	rounds := func(tick time.Duration, nudge bool, n int) []claim.Round {
		l := &claim.Loop{Slots: 2, Tick: tick}
		got := make(chan claim.Round, n)
		ctx, cancel := context.WithCancel(context.Background())
		wait := runLoop(ctx, l, func(_ context.Context, r claim.Round) []claim.Piece {
			select {
			case got <- r:
			default:
			}
			return nil
		})
		if nudge {
			l.Nudge()
		}
		var out []claim.Round
		for len(out) < n {
			select {
			case r := <-got:
				out = append(out, r)
			case <-time.After(5 * time.Second):
				t.Fatalf("%d rounds, want %d", len(out), n)
			}
		}
		cancel()
		wait()
		return out
	}
	if r := rounds(time.Hour, true, 1)[0]; r.Idle || r.Free != 2 {
		t.Fatalf("nudged round %+v, want not idle with 2 free slots", r)
	}
	for _, r := range rounds(time.Millisecond, false, 3) {
		if !r.Idle {
			t.Fatalf("tick after an empty claim %+v, want idle", r)
		}
	}
}

// With Ahead, a claim may take as many pieces again as there are slots (no more, however
// large Ahead): the extra ones wait in the queue, count in the round's per-organization and
// per-queue figures like running ones, and start in a slot as soon as it frees, without
// another claim.
func TestLoopClaimsAhead(t *testing.T) {
	l := &claim.Loop{Slots: 4, Ahead: 9, Tick: time.Hour}
	gate := make(chan struct{})
	var started, finished atomic.Int32
	rounds := make(chan claim.Round, 64)
	var claimed atomic.Bool
	claimFn := func(_ context.Context, r claim.Round) []claim.Piece {
		rounds <- r
		if claimed.Swap(true) {
			return nil // the first claim only: later pieces start from the queue
		}
		work := make([]claim.Piece, r.Free)
		for i := range work {
			work[i] = claim.Piece{Org: "org_a", Queue: "q_a", Run: func() {
				started.Add(1)
				<-gate
				finished.Add(1)
			}}
		}
		return work
	}
	ctx, cancel := context.WithCancel(context.Background())
	wait := runLoop(ctx, l, claimFn)
	l.Nudge()
	if r := <-rounds; r.Free != 8 {
		t.Fatalf("first round %+v, want room for 8 (4 slots and 4 ahead: Ahead is at most Slots)", r)
	}
	waitFor(t, "four pieces started", func() bool { return started.Load() == 4 })
	time.Sleep(10 * time.Millisecond)
	if n := started.Load(); n != 4 {
		t.Fatalf("%d pieces started with 4 slots", n)
	}
	for range 3 {
		gate <- struct{}{} // a piece finishes: its slot takes a queued one
	}
	waitFor(t, "three queued pieces started", func() bool { return started.Load() == 7 })
	waitFor(t, "a round counting the queued piece", func() bool {
		for {
			select {
			case r := <-rounds:
				if r.Free == 3 && r.Org["org_a"] == 5 && r.Queue["q_a"] == 5 {
					return true
				}
			default:
				return false
			}
		}
	})
	close(gate)
	waitFor(t, "every piece finished", func() bool { return finished.Load() == 8 })
	cancel()
	wait()
}

// A stopped loop releases its queued pieces instead of running them; the running ones end.
func TestLoopReleasesQueuedPiecesOnStop(t *testing.T) {
	l := &claim.Loop{Slots: 1, Ahead: 1, Tick: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	var ran, released atomic.Int32
	var claimed atomic.Bool
	piece := func(block bool) claim.Piece {
		return claim.Piece{Org: "o", Queue: "q",
			Run: func() {
				ran.Add(1)
				if block {
					<-ctx.Done()
				}
			},
			Release: func() { released.Add(1) }}
	}
	wait := runLoop(ctx, l, func(context.Context, claim.Round) []claim.Piece {
		if claimed.Swap(true) {
			return nil
		}
		return []claim.Piece{piece(true), piece(false)}
	})
	l.Nudge()
	waitFor(t, "the first piece running", func() bool { return ran.Load() == 1 })
	cancel()
	wait()
	if r, rel := ran.Load(), released.Load(); r != 1 || rel != 1 {
		t.Fatalf("%d pieces ran and %d were released, want the running one run and the queued one released", r, rel)
	}
}

// A free slot takes the queued piece of the organization with the fewest pieces running, not
// simply the oldest: a busy organization's queued pieces do not hold back another's.
func TestLoopStartsTheFairestQueuedPiece(t *testing.T) {
	l := &claim.Loop{Slots: 2, Ahead: 2, Tick: time.Hour}
	gateA, gateB := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var order []string
	started := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), order...)
	}
	piece := func(name string, gate chan struct{}) claim.Piece {
		return claim.Piece{Org: name[:1], Queue: name[:1], Run: func() {
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			if gate != nil {
				<-gate
			}
		}}
	}
	var claimed atomic.Bool
	ctx, cancel := context.WithCancel(context.Background())
	wait := runLoop(ctx, l, func(context.Context, claim.Round) []claim.Piece {
		if claimed.Swap(true) {
			return nil
		}
		// a1 and b1 take the slots; queued, oldest first: a2, then b2.
		return []claim.Piece{piece("a1", gateA), piece("b1", gateB), piece("a2", nil), piece("b2", nil)}
	})
	l.Nudge()
	waitFor(t, "a1 and b1 running", func() bool { return len(started()) == 2 })
	close(gateB) // b1 ends: organization a has a piece running, b none
	waitFor(t, "both queued pieces started", func() bool { return len(started()) == 4 })
	if got := started(); got[2] != "b2" || got[3] != "a2" {
		t.Fatalf("started %v, want b2 (its organization has none running) before the older a2", got)
	}
	close(gateA)
	cancel()
	wait()
}

// While every slot is busy and at least half of Ahead is queued, a nudge does not claim;
// once the queue is below half, the next nudge does.
func TestLoopWaitsForRoomBeforeClaimingAhead(t *testing.T) {
	l := &claim.Loop{Slots: 2, Ahead: 2, Tick: time.Hour}
	gate := make(chan struct{})
	var claims, started atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	wait := runLoop(ctx, l, func(_ context.Context, r claim.Round) []claim.Piece {
		if claims.Add(1) > 1 {
			return nil
		}
		work := make([]claim.Piece, r.Free)
		for i := range work {
			work[i] = claim.Piece{Org: "o", Queue: "q", Run: func() { started.Add(1); <-gate }}
		}
		return work
	})
	l.Nudge()
	waitFor(t, "two pieces running", func() bool { return started.Load() == 2 })
	l.Nudge()
	gate <- struct{}{} // one finishes (and nudges): one still queued, half of Ahead
	waitFor(t, "a queued piece started", func() bool { return started.Load() == 3 })
	time.Sleep(20 * time.Millisecond)
	if n := claims.Load(); n != 1 {
		t.Fatalf("%d claims with every slot busy and half of Ahead queued, want the first only", n)
	}
	gate <- struct{}{} // another finishes: the queue is empty, room for 2
	waitFor(t, "a claim for the room", func() bool { return claims.Load() == 2 })
	close(gate)
	cancel()
	wait()
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within 5s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// A piece that panics fails alone: the process goes on, its slot is counted free, and the
// pieces after it run.
func TestLoopSurvivesAPanickingPiece(t *testing.T) {
	var ran atomic.Int32
	var claims atomic.Int32
	l := &claim.Loop{Slots: 1, Tick: time.Hour, Log: slog.New(slog.DiscardHandler)}
	claimFn := func(_ context.Context, r claim.Round) []claim.Piece {
		switch claims.Add(1) {
		case 1:
			return []claim.Piece{{Org: "o", Queue: "q", Run: func() { panic("boom") }}}
		case 2, 3:
			return []claim.Piece{{Org: "o", Queue: "q", Run: func() { ran.Add(1) }}}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	wait := runLoop(ctx, l, claimFn)
	l.Nudge()
	deadline := time.Now().Add(5 * time.Second)
	for ran.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
		l.Nudge()
	}
	cancel()
	wait()
	if ran.Load() != 2 {
		t.Fatalf("%d pieces ran after the one that panicked, want 2", ran.Load())
	}
}

// runLoop runs l with claimFn on a goroutine of its own until ctx ends; wait waits for Run to
// return.
func runLoop(ctx context.Context, l *claim.Loop, claimFn func(context.Context, claim.Round) []claim.Piece) (wait func()) {
	done := make(chan struct{})
	go func() { l.Run(ctx, claimFn); close(done) }()
	return func() { <-done }
}

// TestLoopWaitIdle: WaitIdle returns only once a claim begun after the call found nothing
// while nothing ran, so work due at the call has been claimed and finished by then; with
// work that keeps coming it waits until its context ends.
func TestLoopWaitIdle(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l := &claim.Loop{Slots: 2, Tick: time.Hour}
	var mu sync.Mutex
	due, done := 0, 0
	wait := runLoop(ctx, l, func(context.Context, claim.Round) []claim.Piece {
		mu.Lock()
		defer mu.Unlock()
		if due == 0 {
			return nil
		}
		due--
		return []claim.Piece{{Org: "o", Queue: "q", Run: func() {
			time.Sleep(20 * time.Millisecond)
			mu.Lock()
			done++
			mu.Unlock()
		}}}
	})
	if err := l.WaitIdle(ctx); err != nil { // nothing due: idle at once, without the hour's tick
		t.Fatal(err)
	}
	mu.Lock()
	due = 5
	mu.Unlock()
	if err := l.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if done != 5 {
		t.Errorf("WaitIdle returned with %d of 5 pieces done", done)
	}
	due = 1 << 30 // work that never ends
	mu.Unlock()
	short, stop := context.WithTimeout(ctx, 100*time.Millisecond)
	defer stop()
	if err := l.WaitIdle(short); err == nil {
		t.Errorf("idle while work keeps coming")
	}
	cancel()
	wait()
}

// TestLoopWaitIdleAfterACappedClaim: a claim that leaves due work for want of room (its
// organization's share full) is no proof of idleness, even when the pieces in flight all
// finish while it claims: WaitIdle returns only once the work left behind was done too.
func TestLoopWaitIdleAfterACappedClaim(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l := &claim.Loop{Slots: 2, Tick: time.Hour}
	var mu sync.Mutex
	due, done := 3, 0
	release, finished := make(chan struct{}), make(chan struct{}, 8)
	var once sync.Once
	// The pieces wait for the capped claim; when the loop claimed them all before it saw one in
	// flight (and so never capped), the last one handed out lets them go instead, or they
	// would hold every slot with no claim left to release them.
	letGo := sync.OnceFunc(func() { close(release) })
	wait := runLoop(ctx, l, func(_ context.Context, r claim.Round) []claim.Piece {
		if r.Org["o"] >= 1 { // a share of one piece: capped while one is in flight
			once.Do(func() {
				letGo()
				<-finished // the piece in flight ends while this claim is under way...
				// ...and its slot is counted out: not observable from here, so a moment is given
				// (the test passes either way with the fix; without it, this is the window).
				time.Sleep(20 * time.Millisecond)
			})
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if due == 0 {
			return nil
		}
		due--
		if due == 0 {
			letGo()
		}
		return []claim.Piece{{Org: "o", Queue: "q", Run: func() {
			<-release
			mu.Lock()
			done++
			mu.Unlock()
			finished <- struct{}{}
		}}}
	})
	if err := l.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if done != 3 {
		t.Errorf("WaitIdle returned with %d of 3 pieces done", done)
	}
	mu.Unlock()
	cancel()
	wait()
}
