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
// waiting for the tick) and waits for the pieces under way when stopped.
func TestLoopRespectsSlotsAndDrains(t *testing.T) {
	const slots, total = 3, 20
	var mu sync.Mutex
	left := total
	var running, peak, finished atomic.Int32
	l := &claim.Loop{Slots: slots, Tick: time.Hour}
	claimFn := func(_ context.Context, free int) []func() {
		mu.Lock()
		defer mu.Unlock()
		n := min(free, left)
		left -= n
		work := make([]func(), n)
		for i := range work {
			work[i] = func() {
				r := running.Add(1)
				for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
				}
				time.Sleep(2 * time.Millisecond)
				running.Add(-1)
				finished.Add(1)
			}
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
}
