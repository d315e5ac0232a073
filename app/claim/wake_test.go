package claim_test

import (
	"context"
	"testing"
	"time"

	"wsapi/app/claim"
)

// NudgeAfter claims when the time asked for has come, never before, without waiting for the
// tick (an hour here); a request a few milliseconds after another shares its wake, a later
// one gets its own.
func TestLoopNudgeAfterClaimsWhenDue(t *testing.T) {
	t.Parallel()
	claims := make(chan time.Time, 16)
	l := &claim.Loop{Slots: 1, Tick: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	wait := runLoop(ctx, l, func(context.Context, claim.Round) []claim.Piece {
		claims <- time.Now()
		return nil
	})
	next := func(what string) time.Time {
		t.Helper()
		select {
		case at := <-claims:
			return at
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no claim within 10 s", what)
		}
		return time.Time{}
	}
	// The loop's first claim (a start may claim at once) is out of the way.
	l.Nudge()
	next("nudge")
	for len(claims) > 0 {
		<-claims
	}

	start := time.Now()
	l.NudgeAfter(60 * time.Millisecond)
	l.NudgeAfter(62 * time.Millisecond) // shares the first wake
	l.NudgeAfter(150 * time.Millisecond)
	if at := next("first wake"); at.Sub(start) < 60*time.Millisecond {
		t.Fatalf("claimed %s after the request, before the 60 ms asked", at.Sub(start))
	}
	if at := next("second wake"); at.Sub(start) < 150*time.Millisecond {
		t.Fatalf("claimed %s after the request, before the 150 ms asked", at.Sub(start))
	}
	cancel()
	wait()
	l.NudgeAfter(time.Millisecond) // after the stop: sets no timer, and nothing panics
}
