package inbound

import (
	"context"
	"sync/atomic"
	"time"

	"wsapi/app"
	"wsapi/app/claim"
)

// relayBatch and relayBytes bound the updates one relay moves, in one write of the store's:
// 64 of them, and past the first 8 MiB of bodies (mails), so a batch of big mails neither
// holds the store's writer long nor sits in memory at once.
const (
	relayBatch = 64
	relayBytes = 8 << 20
)

// relay moves the updates the hook kept in the spool into the store's queue, in bulk, on a
// claim loop of one slot: a round reads the oldest from the spool, its piece queues them in
// one write of the store's, then takes them out of the spool. Cut short between the two
// (a crash), the next round queues them again, and the store leaves out the ones it has.
type relay struct {
	loop claim.Loop
	// failedAt (Unix nanoseconds, the service's clock): when the last move failed; the
	// rounds of the next tick leave the spool alone (a finished piece nudges the loop at once).
	failedAt atomic.Int64
}

// Relay asks the relay to move what the spool holds now (an update was kept).
func (w *Worker) Relay() { w.relay.loop.Nudge() }

// runRelay relays until ctx ends; a move under way finishes.
func (w *Worker) runRelay(ctx context.Context) {
	r := &w.relay
	r.loop.Slots, r.loop.Tick, r.loop.Log = 1, w.Tick, w.Log
	r.loop.Run(ctx, func(ctx context.Context, _ claim.Round) []claim.Piece {
		if w.Service.Clock().Now().Sub(time.Unix(0, r.failedAt.Load())) < w.Tick {
			return nil
		}
		ups, err := w.Spool.Take(ctx, relayBatch, relayBytes)
		if claim.Failed(ctx, w.Log, "inbound: spool", err) || len(ups) == 0 {
			return nil
		}
		return []claim.Piece{{Run: func() {
			if err := app.Safely(func() error { return w.move(ctx, ups) }); err != nil {
				r.failedAt.Store(w.Service.Clock().Now().UnixNano())
				app.LogFailure(w.Log, "inbound: relay", err, "updates", len(ups))
			}
		}}}
	})
}

// move queues ups in the store, then takes them out of the spool. The store's commit
// nudges the worker (sqlite.WorkInbound).
func (w *Worker) move(ctx context.Context, ups []Update) error {
	ctx = context.WithoutCancel(ctx) // a move begun ends whole: the spool and the store agree
	if err := queueAll(ctx, w.Service, ups); err != nil {
		return err
	}
	ids := make([]string, len(ups))
	for i, u := range ups {
		ids[i] = u.ID
	}
	return w.Spool.Remove(ctx, ids)
}
