package webhook

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"wsapi/app"
	"wsapi/app/claim"
)

// Dispatcher claims due deliveries and runs them on a fixed number of workers. It claims
// only as many as it has free workers, round-robin across organizations and their endpoints,
// at most PerOrg in flight per organization and PerEndpoint per endpoint, so one
// organization's (or one endpoint's) hanging requests cannot hold every worker while others'
// deliveries wait.
//
// A worker whose request has finished hands the attempt over and is free: the next claim
// records every attempt handed over since the last one in its own transaction (one commit
// per round instead of one per attempt and one per claim). Until then the delivery keeps its
// lease, so nothing claims it again; a crash before the record only means the delivery is
// sent again once its lease runs out (at least once).
//
// It claims ahead of its free workers too (claim.Loop.Ahead, as many again as the workers):
// a worker that finishes starts the next claimed job at once instead of waiting for the next
// round. Claimed-ahead jobs count against the caps like running ones; one that waited past
// its StartBy is handed back unattempted, and a shutdown releases those still queued.
type Dispatcher struct {
	Service     Deliveries
	Clock       app.Clock // stamps the attempts
	Sender      app.WebhookSender
	PerEndpoint int
	PerOrg      int
	Log         *slog.Logger

	loop     claim.Loop
	mu       sync.Mutex
	finished []app.Outcome // attempts made and not recorded yet
}

// Deliveries is what the dispatcher needs of the domain (app.Service has it).
type Deliveries interface {
	ClaimDeliveries(ctx context.Context, room app.ClaimRoom) ([]app.Job, error)
	FinishAndClaim(ctx context.Context, finished []app.Outcome, room app.ClaimRoom) ([]app.Job, error)
	FinishDeliveries(ctx context.Context, outs []app.Outcome) error
	ReleaseDelivery(ctx context.Context, id string) error
}

// NewDispatcher prepares a dispatcher; PerEndpoint is half the workers, PerOrg is perOrg
// (webhooks.max_in_flight_per_org) or by default three quarters of them (app.OrgShare).
func NewDispatcher(svc Deliveries, clock app.Clock, sender app.WebhookSender, workers, perOrg int, tick time.Duration, log *slog.Logger) *Dispatcher {
	return &Dispatcher{Service: svc, Clock: clock, Sender: sender, PerEndpoint: max(1, (workers+1)/2),
		PerOrg: app.OrgShare(perOrg, workers), Log: log,
		loop: claim.Loop{Slots: workers, Ahead: workers, Tick: tick, Log: log}}
}

// Nudge asks for a claim now rather than at the next tick (new events, a finished job).
func (d *Dispatcher) Nudge() { d.loop.Nudge() }

// WaitIdle waits until nothing is due, claimed or under way (claim.Loop.WaitIdle).
func (d *Dispatcher) WaitIdle(ctx context.Context) error { return d.loop.WaitIdle(ctx) }

// Run claims and dispatches until ctx ends, then waits for the running deliveries: those cut
// short by the shutdown are released without using an attempt, the attempts made are
// recorded.
func (d *Dispatcher) Run(ctx context.Context) {
	d.loop.Run(ctx, d.claim)
	d.recordEach(d.takeFinished())
}

func (d *Dispatcher) claim(ctx context.Context, r claim.Round) []claim.Piece {
	outs := d.takeFinished()
	room := app.ClaimRoom{Limit: r.Free, PerOrg: d.PerOrg, PerQueue: d.PerEndpoint, Org: r.Org, Queue: r.Queue,
		LookFirst: r.Idle}
	var jobs []app.Job
	err := app.Safely(func() (err error) {
		jobs, err = d.Service.FinishAndClaim(ctx, outs, room)
		return err
	})
	if err != nil && len(outs) > 0 {
		// The transaction rolled back with the attempts in it: record them on their own, so
		// one bad record (or a shutdown) costs nothing but itself, then claim alone.
		d.recordEach(outs)
		err = app.Safely(func() (err error) {
			jobs, err = d.Service.ClaimDeliveries(ctx, room)
			return err
		})
	}
	if err != nil {
		if ctx.Err() == nil {
			app.LogFailure(d.Log, "webhooks: claim", err)
		}
		return nil
	}
	return claim.Each(jobs, func(j app.Job) claim.Piece {
		return claim.Piece{Org: j.OrgID, Queue: j.WebhookID, Run: func() { d.run(ctx, j) },
			Release: func() { d.release(ctx, j) }}
	})
}

func (d *Dispatcher) run(ctx context.Context, j app.Job) {
	now := d.Clock.Now()
	if !j.StartBy.IsZero() && now.After(j.StartBy.Time) {
		d.release(ctx, j) // waited too long in the queue: its lease could end before its record
		return
	}
	a := d.send(ctx, j)
	a.CreatedAt = app.At(now)
	// A shutdown cut the request short: that says nothing about the endpoint.
	if ctx.Err() != nil {
		d.release(ctx, j)
		return
	}
	if !a.Succeeded() {
		d.logFailed(j, a)
	}
	d.mu.Lock()
	d.finished = append(d.finished, app.Outcome{Job: j, Attempt: a})
	d.mu.Unlock()
}

// logFailed writes a WARN line for an attempt that failed: the endpoint's owner sees it in
// the delivery's attempts, the operator in the log. The URL is left out (its query may hold
// a token); the endpoint's id names it.
func (d *Dispatcher) logFailed(j app.Job, a app.Attempt) {
	args := []any{"org", j.OrgID, "webhook", j.WebhookID, "delivery", j.DeliveryID, "event", j.EventType, "attempt", j.Attempt}
	if a.ResponseCode != nil {
		args = append(args, "status", *a.ResponseCode)
	}
	if a.Error != nil { // a client error quotes the URL: not in the log
		args = append(args, "err", strings.ReplaceAll(*a.Error, j.URL, "<endpoint url>"))
	}
	d.Log.Warn("webhooks: delivery attempt failed", args...)
}

// release hands a claimed delivery back without using an attempt; with the workers' context
// ended too (shutdown).
func (d *Dispatcher) release(ctx context.Context, j app.Job) {
	err := app.Safely(func() error { return d.Service.ReleaseDelivery(context.WithoutCancel(ctx), j.DeliveryID) })
	if err != nil {
		app.LogFailure(d.Log, "webhooks: release", err, "delivery", j.DeliveryID)
	}
}

func (d *Dispatcher) takeFinished() []app.Outcome {
	d.mu.Lock()
	defer d.mu.Unlock()
	outs := d.finished
	d.finished = nil
	return outs
}

// recordEach records attempts one transaction each. Not with the workers' context: it may
// have ended (shutdown), and attempts that were made are recorded all the same.
func (d *Dispatcher) recordEach(outs []app.Outcome) {
	for _, o := range outs {
		err := app.Safely(func() error { return d.Service.FinishDeliveries(context.Background(), []app.Outcome{o}) })
		if err != nil {
			app.LogFailure(d.Log, "webhooks: record attempt", err, "delivery", o.Job.DeliveryID)
		}
	}
}

// send makes one attempt. A panic while sending is that attempt's failure, recorded like any
// other (the delivery retries on its schedule), never the process's end.
func (d *Dispatcher) send(ctx context.Context, j app.Job) (a app.Attempt) {
	err := app.Safely(func() error {
		a = d.Sender.Send(ctx, j)
		return nil
	})
	if err != nil {
		app.LogFailure(d.Log, "webhooks: send", err, "delivery", j.DeliveryID)
		msg := "could not send this delivery: an internal error, reported in the server log"
		a = app.Attempt{Status: app.AttemptFailed, Error: &msg}
	}
	return a
}
