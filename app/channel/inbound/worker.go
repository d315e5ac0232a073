package inbound

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"wsapi/app"
	"wsapi/app/channel"
	"wsapi/app/claim"
)

// DefaultSchedule is the wait before each retry of an update that could not be taken in (a
// media download or the database failed): 5 attempts over about 20 minutes, then it is
// dropped (and logged).
var DefaultSchedule = []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 15 * time.Minute}

// SeenRetention is how long a provider's id is remembered against duplicates: providers
// retry an unanswered update for a day at most.
const SeenRetention = 72 * time.Hour

// Worker takes queued updates in, Workers at a time.
type Worker struct {
	Service *app.Service
	Inbound map[string]channel.Inbound // by integration type; a MediaFetcher too when it has media
	// Spool is where the hook keeps the updates; the worker's relay queues them in the store.
	Spool Spool
	// Takers take their queued bodies whole, by integration type (email's listener queues
	// its mail here: Queue).
	Takers  map[string]channel.Taker
	Workers int
	PerOrg  int // in flight per organization (0: app.OrgShare's default)
	Tick    time.Duration
	// Timeout bounds the work of one update (media downloads included); the lease is twice
	// that plus 5 s.
	Timeout  time.Duration
	Schedule []time.Duration // nil: DefaultSchedule
	// MaxMedia bounds one downloaded file (0: 20 MiB, the Bot API's own download limit).
	MaxMedia int64
	Log      *slog.Logger

	loop  claim.Loop
	relay relay
}

// Nudge asks for a claim now (an update was queued).
func (w *Worker) Nudge() { w.loop.Nudge() }

// WaitIdle waits until the spool is empty and nothing is due, claimed or under way (tests).
func (w *Worker) WaitIdle(ctx context.Context) error {
	if err := w.relay.loop.WaitIdle(ctx); err != nil {
		return err
	}
	return w.loop.WaitIdle(ctx)
}

// Run relays the spool and takes updates in until ctx ends, then waits for those under way
// (each bounded by Timeout); an update cut short is left to its lease.
func (w *Worker) Run(ctx context.Context) {
	w.defaults()
	relayed := make(chan struct{})
	w.Relay() // what a previous process kept and did not relay
	go func() { defer close(relayed); w.runRelay(ctx) }()
	defer func() { <-relayed }()
	slots := max(1, w.Workers)
	perOrg := app.OrgShare(w.PerOrg, slots)
	w.loop.Slots, w.loop.Tick, w.loop.Log = slots, w.Tick, w.Log
	w.loop.Run(ctx, func(ctx context.Context, r claim.Round) []claim.Piece {
		room := app.ClaimRoom{Limit: r.Free, PerOrg: perOrg, Org: r.Org, Queue: r.Queue, LookFirst: r.Idle}
		ups, err := w.claim(ctx, room)
		if claim.Failed(ctx, w.Log, "inbound: claim", err) {
			return nil
		}
		return claim.Each(ups, func(u Update) claim.Piece {
			return claim.Piece{Org: u.OrgID, Queue: u.DeploymentID, Run: func() { w.take(ctx, u) }}
		})
	})
}

func (w *Worker) defaults() {
	if w.Schedule == nil {
		w.Schedule = DefaultSchedule
	}
	if w.Timeout <= 0 {
		w.Timeout = time.Minute
	}
	if w.Tick <= 0 {
		w.Tick = time.Second
	}
	if w.MaxMedia <= 0 {
		w.MaxMedia = 20 << 20
	}
	if w.Log == nil {
		w.Log = slog.Default()
	}
}

func (w *Worker) now() app.Time { return app.At(w.Service.Clock().Now()) }

// claim leases the updates due now that room picks; an idle loop looks on a reader first.
func (w *Worker) claim(ctx context.Context, room app.ClaimRoom) (ups []Update, err error) {
	now := w.now()
	if room.LookFirst {
		due := false
		err := w.Service.Store().Read(ctx, func(tx app.Tx) error {
			itx, err := txOf(tx)
			if err == nil {
				due, err = itx.AnyUpdateQueued(now)
			}
			return err
		})
		if err != nil || !due {
			return nil, err
		}
	}
	err = w.Service.Store().Write(ctx, func(tx app.Tx) error {
		itx, err := txOf(tx)
		if err == nil {
			ups, err = itx.ClaimUpdates(now, app.At(now.Add(2*w.Timeout+5*time.Second)), room)
		}
		return err
	})
	return ups, err
}

// take processes one update and records the outcome: gone when done (or never readable),
// due again after the schedule's wait when it failed. A panic fails the attempt only.
func (w *Worker) take(ctx context.Context, u Update) {
	dropped := false
	err := app.Safely(func() (err error) {
		tctx, cancel := context.WithTimeout(ctx, w.Timeout)
		defer cancel()
		dropped, err = w.process(tctx, u)
		return err
	})
	if ctx.Err() != nil {
		return // shutting down: the lease brings it back
	}
	var unreadable errUnreadable
	attempts := u.Attempts + 1
	done := err == nil || errors.As(err, &unreadable) || attempts > len(w.Schedule)
	if err != nil {
		app.LogFailure(w.Log, "inbound: update", err, "org", u.OrgID, "integration", u.DeploymentID,
			"update", u.ID, "attempt", attempts, "dropped", done)
	}
	if dropped && err == nil {
		return // the last message's write took the update out of the queue
	}
	werr := w.Service.Store().Write(context.WithoutCancel(ctx), func(tx app.Tx) error {
		itx, err := txOf(tx)
		if err != nil {
			return err
		}
		if done {
			return itx.DropUpdate(u.ID)
		}
		return itx.RetryUpdate(u.ID, attempts, app.At(w.Service.Clock().Now().Add(w.Schedule[attempts-1])))
	})
	if werr != nil {
		w.Log.Error("inbound: record", "update", u.ID, "err", werr)
	}
}

// errUnreadable is an update no retry can take in: its integration went, or its body does
// not parse.
type errUnreadable struct{ error }

// process parses an update and takes in each thing it reports, in order. The write of the
// last message also takes the update out of the queue (dropped): one write fewer per update.
func (w *Worker) process(ctx context.Context, u Update) (dropped bool, err error) {
	var d app.Deployment
	err = w.Service.Store().Read(ctx, func(tx app.Tx) (err error) {
		d, err = tx.GetDeployment(u.OrgID, "", u.DeploymentID)
		return err
	})
	in, taker := w.Inbound[u.IntegrationID], w.Takers[u.IntegrationID]
	if app.IsNotFound(err) || (in == nil && taker == nil) {
		return false, errUnreadable{errors.New("inbound: the integration is gone")}
	}
	if err != nil {
		return false, err
	}
	if taker != nil {
		return w.takeWhole(ctx, d, taker, u)
	}
	items, err := in.Parse(ctx, d, u.Body)
	if err != nil {
		return false, errUnreadable{err}
	}
	for i, it := range items {
		if it.Status != "" {
			if err := w.status(ctx, d, it); err != nil {
				return false, err
			}
			continue
		}
		drop := ""
		if i == len(items)-1 {
			drop = u.ID
		}
		if dropped, err = w.message(ctx, d, in, it, drop); err != nil {
			return false, err
		}
	}
	return dropped, nil
}

// takeWhole hands a body to its channel's Taker, which drops it from the queue in the write
// that stores it (dropped). A Permanent error makes it unreadable: dropped at once.
func (w *Worker) takeWhole(ctx context.Context, d app.Deployment, t channel.Taker, u Update) (dropped bool, err error) {
	err = t.Take(ctx, d, u.Body, func(tx app.Tx) error {
		itx, err := txOf(tx)
		if err == nil {
			err = itx.DropUpdate(u.ID)
		}
		dropped = err == nil
		return err
	})
	var perm channel.Permanent
	if errors.As(err, &perm) {
		return false, errUnreadable{err}
	}
	return dropped && err == nil, err
}
