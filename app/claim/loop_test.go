package claim_test

import (
	"context"
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
	done := make(chan struct{})
	go func() { l.Run(ctx, claimFn); close(done) }()
	l.Nudge()
	deadline := time.Now().Add(5 * time.Second)
	for finished.Load() < total && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
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
		done := make(chan struct{})
		go func() {
			l.Run(ctx, func(_ context.Context, r claim.Round) []claim.Piece {
				select {
				case got <- r:
				default:
				}
				return nil
			})
			close(done)
		}()
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
		<-done
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
