package mailbox

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"wsapi/app"
)

// Importer takes one mail of an integration's mailbox into its chats: the email channel's
// receiver, as for a mail that came over SMTP. An error leaves the mail to be tried again.
type Importer func(ctx context.Context, d app.Deployment, raw io.Reader) error

// Cursor is where an integration's poller stands in its mailbox.
type Cursor struct {
	Key         string // Settings.key of the mailbox it belongs to
	UIDValidity uint32
	LastUID     uint32
	LastDate    time.Time // the server's INTERNALDATE of the last mail imported
}

// Store keeps the cursors, and lists the integrations that poll a mailbox.
type Store interface {
	ImapDeployments(ctx context.Context) (ids, orgs []string, err error)
	Cursor(ctx context.Context, asiID string) (Cursor, bool, error)
	SaveCursor(ctx context.Context, asiID, orgID string, c Cursor) error
}

// Poller polls the mailboxes of every imap email integration.
type Poller struct {
	Service  *app.Service // reads integrations, records their status; its Clock times the polls
	Store    Store
	Dialer   Dialer
	Import   Importer
	Interval time.Duration // email.imap_poll
	MaxConns int           // connections open at once, IDLE ones included
	MaxBytes int64         // a larger mail is skipped (logged), as the SMTP listener refuses it
	PerPass  int           // mails imported per pass before another integration may have the slot; 0: 100
	Log      *slog.Logger

	mu      sync.Mutex
	state   map[string]*entry
	waiting atomic.Int32 // integrations due that found no free connection
	nudge   chan struct{}
	once    sync.Once
	tries   sync.Map // "asi/uidvalidity/uid" -> failed imports of that mail
}

// entry is the poller's memory of one integration.
type entry struct {
	org     string
	running bool
	next    time.Time // due again at
	served  time.Time // last session's end: who waited longest goes first
}

func (p *Poller) init() {
	p.once.Do(func() {
		p.state = map[string]*entry{}
		p.nudge = make(chan struct{}, 1)
		if p.PerPass <= 0 {
			p.PerPass = 100
		}
		if p.Log == nil {
			p.Log = slog.New(slog.DiscardHandler)
		}
	})
}

// Nudge makes the poller look for due mailboxes now (a test moved the clock).
func (p *Poller) Nudge() {
	p.init()
	select {
	case p.nudge <- struct{}{}:
	default:
	}
}

// Run polls until ctx ends, then waits for the sessions, which end with it (their
// connections are closed).
func (p *Poller) Run(ctx context.Context) {
	p.init()
	slots := make(chan struct{}, max(p.MaxConns, 1))
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		if err := p.round(ctx, slots, &wg); err != nil && ctx.Err() == nil {
			p.Log.Error("mailbox: listing the imap integrations failed", "err", err)
		}
		// The idle wait is on a real timer, not the service's clock: a test's manual clock
		// nudges the poller when it moves, and a waiter parked on it for good would make every
		// test that waits for "someone waits on the clock" (a run's retry) see it at once.
		t := time.NewTimer(p.Interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-p.nudge:
		}
		t.Stop()
	}
}

// round starts a session for every due integration while connections are free: the ones
// that waited longest first, organizations in turn, so no tenant's many mailboxes starve
// another's one.
func (p *Poller) round(ctx context.Context, slots chan struct{}, wg *sync.WaitGroup) error {
	ids, orgs, err := p.Store.ImapDeployments(ctx)
	if err != nil {
		return err
	}
	now := p.Service.Clock().Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.forget(ids)
	var due []string
	for i, id := range ids {
		e := p.state[id]
		if e == nil {
			e = &entry{org: orgs[i]}
			p.state[id] = e
		}
		if !e.running && !e.next.After(now) {
			due = append(due, id)
		}
	}
	due = p.fairOrder(due)
	started := 0
	for _, id := range due {
		select {
		case slots <- struct{}{}:
		default:
			p.waiting.Store(int32(len(due) - started))
			return nil
		}
		started++
		p.state[id].running = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			p.serve(ctx, id)
		}()
	}
	p.waiting.Store(0)
	return nil
}

// forget drops the memory of integrations deleted or moved to smtp (not while a session runs).
func (p *Poller) forget(ids []string) {
	for id, e := range p.state {
		if !e.running && !slices.Contains(ids, id) {
			delete(p.state, id)
		}
	}
}

// fairOrder orders due integrations by how long they waited, then takes organizations in
// turn: each organization's longest-waiting first, then each one's second, and so on.
func (p *Poller) fairOrder(due []string) []string {
	slices.SortStableFunc(due, func(a, b string) int { return p.state[a].served.Compare(p.state[b].served) })
	byOrg := map[string][]string{}
	var orgs []string
	for _, id := range due {
		org := p.state[id].org
		if byOrg[org] == nil {
			orgs = append(orgs, org)
		}
		byOrg[org] = append(byOrg[org], id)
	}
	out := make([]string, 0, len(due))
	for i := 0; len(out) < len(due); i++ {
		for _, org := range orgs {
			if i < len(byOrg[org]) {
				out = append(out, byOrg[org][i])
			}
		}
	}
	return out
}

// serve runs one session of an integration, recovering a panic as its failure, and sets
// when it is due again: at once when it gave way to others, else a poll interval after it
// started.
func (p *Poller) serve(ctx context.Context, id string) {
	start := p.Service.Clock().Now()
	var yielded bool
	err := app.Safely(func() (err error) {
		yielded, err = p.session(ctx, id)
		return err
	})
	if err != nil && ctx.Err() == nil {
		app.LogFailure(p.Log, "mailbox: poll failed", err, "assistant_integration_id", id)
	}
	p.mu.Lock()
	due := false
	if e := p.state[id]; e != nil {
		e.running, e.served = false, p.Service.Clock().Now()
		e.next = start.Add(p.Interval)
		if yielded {
			e.next = e.served
		}
		due = !e.next.After(e.served) // the interval passed during the session
	}
	more := p.waiting.Load() > 0
	p.mu.Unlock()
	if more || due {
		p.Nudge() // a connection is free for a waiting integration, or this one is due again
	}
}

// after waits d on the service's clock (a test's manual clock moves only when told).
func (p *Poller) after(d time.Duration) <-chan time.Time {
	if a, ok := p.Service.Clock().(interface {
		After(time.Duration) <-chan time.Time
	}); ok {
		return a.After(d)
	}
	return time.After(d)
}

// load reads an integration with its secrets.
func (p *Poller) load(ctx context.Context, id string) (d app.Deployment, err error) {
	err = p.Service.Store().Read(ctx, func(tx app.Tx) error {
		d, err = tx.FindDeployment(id)
		return err
	})
	return d, err
}

// record sets the integration's status from a poll's outcome, when it changes.
func (p *Poller) record(ctx context.Context, d app.Deployment, failure error) {
	want := app.DeploymentActive
	if failure != nil {
		want = app.DeploymentFailed
	}
	if d.Status == want && (failure == nil || d.Error != nil && *d.Error == failure.Error()) {
		return
	}
	if err := p.Service.SetDeploymentStatus(ctx, d, failure); err != nil && ctx.Err() == nil {
		p.Log.Error("mailbox: recording the integration's status failed", "assistant_integration_id", d.ID, "err", err)
	}
}
