package mail

import (
	"context"
	"log/slog"
	"time"

	"wsapi/app"
	"wsapi/app/claim"
)

// Worker is the broadcast sender: it claims SENDING recipients, as many as it has free
// workers, and gives each its outcome. At most that many recipients are in flight, so a
// crash resends at most that many messages (their leases expire and they are claimed again).
type Worker struct {
	Service *app.Service
	Log     *slog.Logger
	loop    claim.Loop
}

// NewWorker prepares a sender.
func NewWorker(svc *app.Service, workers int, tick time.Duration, log *slog.Logger) *Worker {
	return &Worker{Service: svc, Log: log, loop: claim.Loop{Slots: max(1, workers), Tick: tick}}
}

// Nudge asks for a claim now (a broadcast was created, a send finished).
func (w *Worker) Nudge() { w.loop.Nudge() }

// Run sends until ctx ends, then waits for the sends under way.
func (w *Worker) Run(ctx context.Context) { w.loop.Run(ctx, w.claim) }

func (w *Worker) claim(ctx context.Context, free int) []func() {
	rs, err := w.Service.ClaimRecipients(ctx, free)
	if err != nil {
		if ctx.Err() == nil {
			w.Log.Error("broadcasts: claim", "err", err)
		}
		return nil
	}
	work := make([]func(), len(rs))
	for i, r := range rs {
		work[i] = func() { w.process(ctx, r) }
	}
	return work
}

// process gives one recipient its outcome. A panic on the way fails that recipient, with a
// reason that says so, and the sender goes on with the next.
func (w *Worker) process(ctx context.Context, r app.Recipient) {
	err := app.Safely(func() error { return w.Service.ProcessRecipient(ctx, r) })
	if _, ok := app.IsPanic(err); ok {
		app.LogFailure(w.Log, "broadcasts: send", err, "recipient", r.ID)
		err = w.Service.FailRecipient(context.WithoutCancel(ctx), r,
			"could not send to this recipient: an internal error, reported in the server log")
	}
	if err != nil && ctx.Err() == nil {
		w.Log.Error("broadcasts: send", "recipient", r.ID, "err", err)
	}
}
