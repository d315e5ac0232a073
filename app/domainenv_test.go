package app_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/secret"
	"wsapi/sqlite"
)

// The domain tests drive app.Service, the API the handlers call, over a real SQLite file in
// t.TempDir() (no fake store) with a manual clock. A test changes the defaults below through
// the options of newDomainEnv.

var domainStart = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

// testModel is the model the runs of these tests use, priced per million tokens.
const testModel = "openai:gpt-test"

// domainEnv is one service over its own database, with the Default organization's owner.
type domainEnv struct {
	t     *testing.T
	ctx   context.Context
	db    *sqlite.DB
	svc   *app.Service
	deps  app.Deps // what svc was made with (with makes another service from them)
	clock *app.ManualClock
	org   app.Org
	admin app.Caller // the owner (ADMIN) acting on org
	token string     // admin's key
}

func defaultDeps() app.Deps {
	return app.Deps{
		Log: slog.New(slog.DiscardHandler),
		Webhooks: app.WebhookPolicy{RetrySchedule: []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute},
			DisableAfter: 3, Timeout: 5 * time.Second, Retention: 24 * time.Hour, AllowPrivateTargets: true},
		RunPolicy: app.RunPolicy{Debounce: 2 * time.Second, HistoryMessages: 10, DefaultModel: testModel, Lease: time.Minute,
			Prices: map[string]app.Price{testModel: {Input: 2, Output: 10, CacheRead: 1}}},
		Automation:      app.AutomationPolicy{AutoResolveAfter: time.Hour, FollowUpAfter: 10 * time.Minute, MaxFollowUps: 2},
		InboxCacheChats: 1000,
	}
}

// migratedDB answers the bytes of a freshly migrated database, migrated once per test
// binary: under -race the migrations took about a second per test.
var migratedDB = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "domain-template-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(filepath.Join(dir, "migrated.db"))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	copyPath := filepath.Join(dir, "copy.db")
	if err = db.Migrate(context.Background(), nil); err == nil {
		err = db.Backup(context.Background(), copyPath) // one file, no -wal beside it
	}
	if err != nil {
		return nil, err
	}
	return os.ReadFile(copyPath)
})

// newDomainEnv makes a fresh migrated database, bootstraps it and authenticates its key.
func newDomainEnv(t *testing.T, configure ...func(*app.Deps)) *domainEnv {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "domain.db")
	data, err := migratedDB()
	if err == nil {
		err = os.WriteFile(path, data, 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	box, err := secret.New(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	db.SetSealer(box)
	e := &domainEnv{t: t, ctx: ctx, db: db, clock: app.NewManualClock(domainStart)}
	d := defaultDeps()
	d.Store, d.Clock, d.Tokens = db, e.clock, box.Signer()
	for _, f := range configure {
		f(&d)
	}
	e.deps, e.svc = d, app.NewService(d)
	nk, ok, err := e.svc.Bootstrap(ctx, "domain tests")
	if err != nil || !ok {
		t.Fatalf("bootstrap: %v, %v", ok, err)
	}
	e.token = nk.Token
	e.admin = e.caller(nk.Token)
	e.org = need(e.svc.GetOrg(ctx, nk.OrgID))
	return e
}

// with answers a second service over the same database with other collaborators or policies.
func (e *domainEnv) with(configure func(*app.Deps)) *app.Service {
	d := e.deps
	configure(&d)
	return app.NewService(d)
}

// caller authenticates a token and acts on its key's own organization.
func (e *domainEnv) caller(token string) app.Caller {
	e.t.Helper()
	p, err := e.svc.Authenticate(e.ctx, token)
	if err != nil {
		e.t.Fatalf("authenticate: %v", err)
	}
	return app.Caller{Principal: p, OrgID: p.Key.OrgID}
}

// must fails the test on err.
func (e *domainEnv) must(err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
}

// need answers v of a setup step that cannot fail unless the code under test is broken; it
// panics on err (the test fails with the stack of the step).
func need[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// wantCode fails unless err is an app.Error of code naming exactly fields (none: any).
func wantCode(t *testing.T, what string, err error, code app.Code, fields ...string) {
	t.Helper()
	ae, ok := app.AsError(err)
	if !ok || ae.Code != code {
		t.Errorf("%s: error %v, want code %s", what, err, code)
		return
	}
	if len(fields) == 0 {
		return
	}
	var got []string
	for f := range ae.Fields {
		got = append(got, f)
	}
	slices.Sort(got)
	slices.Sort(fields)
	if !slices.Equal(got, fields) {
		t.Errorf("%s: bad fields %v, want %v", what, got, fields)
	}
}

// contact makes a contact with one channel of type typ.
func (e *domainEnv) contact(name string, ch app.ChannelProfile) app.Contact {
	e.t.Helper()
	in := app.ContactInput{Name: name}
	if ch.Type != "" {
		in.Channels = []app.ChannelInput{{ChannelProfile: ch}}
	}
	c, err := e.svc.CreateContact(e.ctx, e.org.ID, in)
	e.must(err)
	return c
}

// hook subscribes an endpoint to every event type, so tests can count the events emitted.
func (e *domainEnv) hook() app.Webhook {
	e.t.Helper()
	var types []string
	for _, et := range app.EventTypes {
		types = append(types, et.Type)
	}
	w, err := e.svc.CreateWebhook(e.ctx, e.org.ID, app.WebhookInput{Name: "all", URL: "https://hooks.example.com/in", Events: types})
	e.must(err)
	return w
}

// events counts the deliveries queued for endpoint w, by event type.
func (e *domainEnv) events(w app.Webhook) map[string]int {
	e.t.Helper()
	l, err := e.svc.ListDeliveries(e.ctx, e.org.ID, w.ID, "", app.Page{Page: 1, Take: app.MaxTake})
	e.must(err)
	n := map[string]int{}
	for _, d := range l.Items {
		n[d.EventType]++
	}
	return n
}
