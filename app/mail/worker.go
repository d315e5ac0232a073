package mail

import (
	"context"
	"log/slog"
	"time"

	"wsapi/app"
	"wsapi/app/claim"
)

// Worker is the broadcast sender: it claims SENDING recipients, as many as it has free
// workers, round-robin across organizations and their broadcasts and at most PerOrg in
// flight per organization (so one organization's big or slow broadcast cannot hold every
// worker), and gives each its outcome. At most that many recipients are in flight, so a
// crash resends at most that many messages (their leases expire and they are claimed again).
type Worker struct {
	Service Recipients
	PerOrg  int
	Log     *slog.Logger
	loop    claim.Loop
}

// Recipients is what the sender needs of the domain (app.Service has it).
type Recipients interface {
	ClaimRecipients(ctx context.Context, room app.ClaimRoom) ([]app.Recipient, error)
	ProcessRecipient(ctx context.Context, r app.Recipient) error
	FailRecipient(ctx context.Context, r app.Recipient, reason string) error
}

// NewWorker prepares a sender; PerOrg is perOrg (email.max_in_flight_per_org) or by default
// three quarters of the workers (app.OrgShare).
func NewWorker(svc Recipients, workers, perOrg int, tick time.Duration, log *slog.Logger) *Worker {
	workers = max(1, workers)
	return &Worker{Service: svc, PerOrg: app.OrgShare(perOrg, workers), Log: log,
		loop: claim.Loop{Slots: workers, Tick: tick, Log: log}}
}

// Nudge asks for a claim now (a broadcast was created, a send finished).
func (w *Worker) Nudge() { w.loop.Nudge() }

// WaitIdle waits until nothing is due, claimed or under way (claim.Loop.WaitIdle).
func (w *Worker) WaitIdle(ctx context.Context) error { return w.loop.WaitIdle(ctx) }

// Run sends until ctx ends, then waits for the sends under way.
func (w *Worker) Run(ctx context.Context) { w.loop.Run(ctx, w.claim) }

func (w *Worker) claim(ctx context.Context, r claim.Round) []claim.Piece {
	rs, err := w.Service.ClaimRecipients(ctx, app.ClaimRoom{Limit: r.Free, PerOrg: w.PerOrg, Org: r.Org,
		Queue: r.Queue, LookFirst: r.Idle})
	if claim.Failed(ctx, w.Log, "broadcasts: claim", err) {
		return nil
	}
	return claim.Each(rs, func(r app.Recipient) claim.Piece {
		return claim.Piece{Org: r.OrgID, Queue: r.BroadcastID, Run: func() { w.process(ctx, r) }}
	})
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
