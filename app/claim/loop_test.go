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
	claimFn := func(_ context.Context, free int, busy claim.InFlight) []claim.Piece {
		mu.Lock()
		defer mu.Unlock()
		if n := slots - free; busy.Org["org_a"] != n || busy.Queue["q_a"] != n {
			badBusy.Store(busy)
		}
		n := min(free, left)
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
