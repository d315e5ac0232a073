package delivery

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"golang.org/x/time/rate"

	"wsapi/app"
	"wsapi/app/channel"
	"wsapi/app/claim"
)

// Queue is what the worker needs of the domain (app.Service has it).
type Queue interface {
	ClaimMessageDeliveries(ctx context.Context, room app.ClaimRoom, lease time.Duration) ([]app.DeliveryJob, error)
	FinishMessageDelivery(ctx context.Context, job app.DeliveryJob, out app.DeliveryOutcome, schedule []time.Duration) error
}

// DefaultSchedule is the wait before each retry of a failed send: 6 attempts in all over
// about two hours, then the delivery is FAILED.
var DefaultSchedule = []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 15 * time.Minute, time.Hour}

// Worker sends queued replies, Workers at a time.
type Worker struct {
	Queue   Queue
	Senders map[string]channel.Sender // by integration type
	Clock   app.Clock
	Workers int
	PerOrg  int // in flight per organization (0: app.OrgShare's default)
	Tick    time.Duration
	// Timeout bounds one send; the lease is twice that plus 5 s.
	Timeout time.Duration
	// Schedule is the wait after each failed attempt (nil: DefaultSchedule).
	Schedule []time.Duration
	// Rates holds the sends a second allowed per channel type, with a burst of as many
	// (channels.<type>.rate_per_second); a type not listed is not held.
	Rates map[string]float64
	Log   *slog.Logger

	loop    claim.Loop
	limits  map[string]*rate.Limiter
	started bool
}

// Nudge asks for a claim now (a reply was queued, a send finished).
func (w *Worker) Nudge() { w.loop.Nudge() }

// WaitIdle waits until nothing is due, claimed or under way (tests that move the clock).
func (w *Worker) WaitIdle(ctx context.Context) error { return w.loop.WaitIdle(ctx) }

// Run sends until ctx ends, then waits for the sends under way (each bounded by Timeout).
func (w *Worker) Run(ctx context.Context) {
	slots := max(1, w.Workers)
	perOrg := app.OrgShare(w.PerOrg, slots)
	w.init()
	w.loop.Slots, w.loop.Tick, w.loop.Log = slots, w.Tick, w.Log
	w.loop.Run(ctx, func(ctx context.Context, r claim.Round) []claim.Piece {
		return w.claim(ctx, app.ClaimRoom{Limit: r.Free, PerOrg: perOrg, PerQueue: 1, Org: r.Org, Queue: r.Queue,
			LookFirst: r.Idle})
	})
}

func (w *Worker) init() {
	if w.started {
		return
	}
	w.started = true
	if w.Schedule == nil {
		w.Schedule = DefaultSchedule
	}
	if w.Timeout <= 0 {
		w.Timeout = 30 * time.Second
	}
	if w.Log == nil {
		w.Log = slog.Default()
	}
	if w.Tick <= 0 {
		w.Tick = time.Second
	}
	w.limits = map[string]*rate.Limiter{}
	for typ, perSecond := range w.Rates {
		if perSecond > 0 {
			w.limits[typ] = rate.NewLimiter(rate.Limit(perSecond), max(1, int(perSecond)))
		}
	}
}

func (w *Worker) claim(ctx context.Context, room app.ClaimRoom) []claim.Piece {
	jobs, err := w.Queue.ClaimMessageDeliveries(ctx, room, 2*w.Timeout+5*time.Second)
	if claim.Failed(ctx, w.Log, "delivery: claim", err) {
		return nil
	}
	return claim.Each(jobs, func(j app.DeliveryJob) claim.Piece {
		return claim.Piece{Org: j.OrgID, Queue: j.ChatID, Run: func() { w.deliver(ctx, j) }}
	})
}

// deliver sends one reply and records the outcome; a shutdown leaves it to its lease.
func (w *Worker) deliver(ctx context.Context, j app.DeliveryJob) {
	out := w.send(ctx, j)
	if ctx.Err() != nil {
		return
	}
	if out.Err != nil {
		w.Log.Warn("delivery: send failed", "org", j.OrgID, "chat", j.ChatID, "message", j.MessageID,
			"integration", j.IntegrationID, "attempt", j.Attempts+1, "err", out.Err)
	}
	if err := w.Queue.FinishMessageDelivery(ctx, j, out, w.Schedule); err != nil && ctx.Err() == nil {
		w.Log.Error("delivery: record", "message", j.MessageID, "err", err)
	}
}

// errInternal is what a tenant reads when a send panicked; the stack goes to the log.
var errInternal = errors.New("could not send this message: an internal error, reported in the server log")

func (w *Worker) send(ctx context.Context, j app.DeliveryJob) app.DeliveryOutcome {
	sender := w.Senders[j.IntegrationID]
	if sender == nil {
		return app.DeliveryOutcome{Err: errors.New(j.IntegrationID + " is not available on this server yet"), Permanent: true}
	}
	if lim := w.limits[j.IntegrationID]; lim != nil {
		now := w.Clock.Now()
		r := lim.ReserveN(now, 1)
		if wait := r.DelayFrom(now); wait > 0 {
			r.CancelAt(now) // not sent now: the token stays for the send that comes first
			return app.DeliveryOutcome{Wait: wait}
		}
	}
	var sent channel.Sent
	err := app.Safely(func() (err error) {
		sctx, cancel := context.WithTimeout(ctx, w.Timeout)
		defer cancel()
		sent, err = sender.Send(sctx, j.Deployment, j.Chat, j.Message)
		return err
	})
	if _, ok := app.IsPanic(err); ok {
		app.LogFailure(w.Log, "delivery: send", err, "message", j.MessageID)
		return app.DeliveryOutcome{Err: errInternal}
	}
	if wait, ok := channel.AsRetryAfter(err); ok { // the provider's own wait (a 429): no attempt used
		return app.DeliveryOutcome{Wait: wait}
	}
	if err != nil {
		var perm channel.Permanent
		return app.DeliveryOutcome{Err: err, Permanent: errors.As(err, &perm)}
	}
	return app.DeliveryOutcome{Status: sent.Status, ExternalID: sent.ExternalID}
}
