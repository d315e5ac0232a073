package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/viper"

	"wsapi/app"
	"wsapi/app/api"
	"wsapi/app/assist"
	"wsapi/app/budget"
	"wsapi/app/channel/email"
	"wsapi/app/channel/email/mailbox"
	"wsapi/app/channel/inbound"
	"wsapi/app/channel/typing"
	"wsapi/app/connection"
	"wsapi/app/delivery"
	"wsapi/app/janitor"
	"wsapi/app/knowledge"
	"wsapi/app/mail"
	"wsapi/app/oauth"
	"wsapi/app/safehttp"
	"wsapi/app/signin"
	"wsapi/app/stream"
	"wsapi/app/web"
	"wsapi/app/webhook"
	"wsapi/sqlite"
)

// Runtime is the wired application: store, domain service, HTTP handler and background
// workers. serve runs one; the end-to-end test harness builds the very same.
type Runtime struct {
	Config Config
	DB     *sqlite.DB
	// Spool is the file beside DB where the messaging apps' hook keeps updates before it
	// answers (sqlite.Spool); nil until wired.
	Spool   *sqlite.Spool
	Service *app.Service
	// Connections are the connections' rules (app/connection), over Service.
	Connections *connection.Service
	Handler     http.Handler
	// API is the JSON API, widget and hooks inside Handler; its detached event streams
	// outlive net/http's drain, so a shutdown waits for them too (API.WaitStreams).
	API *api.Server
	Log *slog.Logger

	Dispatcher *webhook.Dispatcher
	Sender     *mail.Worker
	Knowledge  *knowledge.Processor
	Janitor    *janitor.Janitor
	Hub        *stream.Hub
	Runner     *assist.Runner
	Delivery   *delivery.Worker
	Inbound    *inbound.Worker
	Mailbox    *mailbox.Poller // IMAP mailboxes of email integrations (cli/mailbox.go)
	Metrics    *api.Metrics
	// Streams is the budget of open event streams every streaming route acquires from
	// (events.max_streams and the caps per key, member and IP).
	Streams *budget.Budget
	// SignIn holds the web app's sign-in rules; Web is the web app at /app/.
	SignIn *signin.Service
	Web    *web.Server
	// Email takes inbound mail into chats (the SMTP listener's and the IMAP poller's);
	// SMTP is the listener, nil unless email.inbound.addr is set and Start ran.
	Email *email.Receiver
	SMTP  *email.Listener

	ready atomic.Bool // /readyz: started and not draining

	mailer   *mail.Mailer
	channels channelSet
	runs     runAborter // the service's way to Runner
	// realClock: no clock was injected, so a run's due time is the timers' time (a test's
	// manual clock nudges the workers itself when it moves).
	realClock bool
	// webhookSender makes the webhook requests the dispatcher sends (the service's Deps.Sender).
	webhookSender app.WebhookSender
	stop          context.CancelFunc
	stopped       chan struct{}
}

// Options are what a caller may inject: a clock (tests move time) and a logger.
type Options struct {
	Clock app.Clock
	Log   *slog.Logger
	// AccessLog takes the request lines (api.Config.AccessLog); nil: Log.
	AccessLog *slog.Logger
	// Resolver replaces the system DNS resolver for webhook targets (tests).
	Resolver app.Resolver
	// EditDeps changes the service's collaborators before the service is made (tests: a
	// mailer that panics, a logger to read, DKIM keys made once); nil: none.
	EditDeps func(*app.Deps)
}

// DefaultConfig is the configuration with every default and nothing else (no file, no env).
func DefaultConfig() Config {
	v := viper.New()
	for k, val := range defaults {
		v.SetDefault(k, val)
	}
	c, err := decodeConfig(v)
	if err != nil {
		panic("cli: defaults do not decode: " + err.Error())
	}
	return c
}

// Build opens and migrates the database and wires service, handler and workers.
func Build(ctx context.Context, cfg Config, opt Options) (*Runtime, error) {
	log := opt.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	db, err := openStore(ctx, cfg.DB.Path, func(r sqlite.MigrationResult) {
		log.Info("migration applied", "name", r.Name, "duration", r.Duration)
	})
	if err != nil {
		return nil, err
	}
	db.CacheChats(cfg.DB.InboxCacheChats)
	rt := &Runtime{Config: cfg, DB: db, Log: log, realClock: opt.Clock == nil}
	if err := rt.wire(cfg, opt); err != nil {
		rt.closeStores()
		return nil, err
	}
	if err := db.CheckSealer(ctx); err != nil {
		rt.closeStores()
		return nil, fmt.Errorf("the secrets key %s cannot open the secrets stored in %s (%w); "+
			"start with the key this database was used with (a backup's key is the FILE.key beside it)",
			cfg.keyFile(), cfg.DB.Path, err)
	}
	proxies, err := cfg.trustedProxies()
	if err != nil {
		rt.closeStores()
		return nil, err
	}
	sender, err := cfg.Email.systemSender()
	if err != nil {
		rt.closeStores()
		return nil, err
	}
	rt.Streams = streamBudget(cfg.Events)
	handler := api.New(rt.Service, db, api.Config{
		MaxBodyBytes:       cfg.HTTP.MaxBodyBytes,
		RateLimitPerMinute: cfg.HTTP.RateLimitPerMinute,
		TrustedProxies:     proxies,
		Version:            Version,
		BodyTimeout:        cfg.HTTP.ReadTimeout,
		MinBodyRate:        cfg.HTTP.MinBodyRate,
		WriteTimeout:       cfg.HTTP.WriteTimeout,
		Hub:                rt.Hub,
		StreamHeartbeat:    cfg.Events.StreamHeartbeat,
		Streams:            rt.Streams,
		Ops:                rt.apiOps(cfg),
		InboxCacheChats:    cfg.DB.InboxCacheChats,
		PublicURL:          cfg.HTTP.PublicURL,
		AccessLog:          opt.AccessLog,
		Widget:             cfg.Channels.widgetLimits(),
		Hooks:              &inbound.Receiver{Service: rt.Service, Inbound: rt.channels.inbound, Spool: rt.Spool},
		Connections:        rt.Connections,
	}, log)
	if rt.Web, err = web.New(web.Config{Service: rt.Service, SignIn: rt.SignIn, Hub: rt.Hub, PublicURL: cfg.HTTP.PublicURL,
		TLS: cfg.HTTP.TLS.CertFile != "" || len(cfg.HTTP.TLS.ACMEDomains) > 0, Heartbeat: cfg.Events.StreamHeartbeat, Log: log, AccessLog: opt.AccessLog,
		ClientIP: func(r *http.Request) string { return api.ClientIP(r, proxies) }, Models: modelChoices(cfg.Models),
		Mailer: rt.webMailer(), MailFrom: sender}); err != nil {
		rt.closeStores()
		return nil, err
	}
	rt.API, rt.Handler = handler, withWebApp(handler, rt.Web)
	return rt, nil
}

// withWebApp serves /app/ with the web app and everything else with the API. The two share
// nothing at the HTTP level: the API never reads the web app's cookie, the web app never a
// bearer key.
func withWebApp(apiHandler, webApp http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/app" || strings.HasPrefix(r.URL.Path, "/app/") {
			webApp.ServeHTTP(w, r)
			return
		}
		apiHandler.ServeHTTP(w, r)
	})
}

// wire makes the service with its collaborators, then the background workers.
func (rt *Runtime) wire(cfg Config, opt Options) error {
	deps, err := rt.deps(cfg, opt)
	if err != nil {
		return err
	}
	if opt.EditDeps != nil {
		opt.EditDeps(&deps)
	}
	rt.Service = app.NewService(deps)
	rt.webhookSender = deps.Sender
	rt.Connections = connection.New(rt.Service, deps.Tokens, oauthProviders(cfg), oauth.New())
	rt.SignIn = signin.New(rt.DB, deps.Clock)
	for _, step := range []func(Config, Options) error{rt.wireWebhooks, rt.wireKnowledge, rt.wireAssistants, rt.wireDelivery, rt.wireEmail, rt.wireMailbox} {
		if err := step(cfg, opt); err != nil {
			return err
		}
	}
	rt.Sender = mail.NewWorker(rt.Service, cfg.Email.Workers, cfg.Email.MaxInFlightPerOrg, cfg.Email.Tick, rt.Log)
	// Every commit that queues background work wakes the workers that take it at once.
	rt.DB.OnWorkQueued(rt.nudgeFor)
	// Every commit that wrote stream events wakes the hub behind the SSE routes.
	rt.DB.OnStreamed(rt.Hub.Committed)
	// Streamed text reaches the chat streams as it arrives; channels that can show the
	// contact "typing..." while a run works (Telegram).
	rt.Runner.Live = &typing.Live{Next: rt.Hub, Store: rt.DB, Typers: rt.channels.typers, Log: rt.Log}
	rt.Janitor = &janitor.Janitor{Interval: time.Minute, Log: rt.Log, Tasks: []janitor.Task{
		{Name: "webhook delivery retention", Run: rt.Service.PurgeDeliveries},
		{Name: "temporary chats", Run: rt.Service.PurgeTemporaryChats},
		{Name: "stream event retention", Run: rt.Service.PurgeStreamEvents},
		rt.purgeIdempotencyKeys(),
		{Name: "assistant auto resolve", Run: rt.Service.AutoResolveChats},
		{Name: "assistant follow-ups", Run: rt.Service.SendFollowUps},
		{Name: "expired web sessions and links", Run: rt.SignIn.PurgeExpired},
		{Name: "channel update ids", Run: rt.Inbound.Purge},
	}}
	return nil
}

// NudgeWorkers wakes the webhook, e-mail, knowledge and run workers to claim now rather
// than on their next tick: after a commit that queued work, and in tests after the manual
// clock moved.
func (rt *Runtime) NudgeWorkers() {
	rt.Dispatcher.Nudge()
	rt.Sender.Nudge()
	rt.Knowledge.Nudge()
	rt.Runner.Nudge()
	rt.Delivery.Nudge()
	rt.Inbound.Nudge()
	rt.Mailbox.Nudge()
}

// WaitIdle waits until the webhook, e-mail, knowledge and run workers have nothing due,
// claimed or under way (claim.Loop.WaitIdle), for tests that assert that nothing happens.
func (rt *Runtime) WaitIdle(ctx context.Context) error {
	for _, w := range []interface{ WaitIdle(context.Context) error }{rt.Dispatcher, rt.Sender, rt.Knowledge, rt.Runner, rt.Inbound} {
		if err := w.WaitIdle(ctx); err != nil {
			return err
		}
	}
	return nil
}

// nudgeFor wakes the workers that take the kinds of work a commit queued: the others would
// only claim for nothing (each claim a write transaction, as a nudged loop does not look
// first on a reader).
func (rt *Runtime) nudgeFor(w sqlite.Work) {
	for _, k := range []struct {
		kind  sqlite.Work
		nudge func()
	}{{sqlite.WorkDeliveries, rt.Dispatcher.Nudge}, {sqlite.WorkRecipients, rt.Sender.Nudge},
		{sqlite.WorkKnowledge, rt.Knowledge.Nudge}, {sqlite.WorkRuns, rt.nudgeRuns},
		{sqlite.WorkMessages, rt.Delivery.Nudge}, {sqlite.WorkInbound, rt.Inbound.Nudge}} {
		if w&k.kind != 0 {
			k.nudge()
		}
	}
}

// nudgeRuns wakes the run worker for a commit that scheduled runs: now (a run due at once),
// and when a run scheduled now is due (assistants.debounce after its last message).
func (rt *Runtime) nudgeRuns() {
	rt.Runner.Nudge()
	if rt.realClock {
		rt.Runner.NudgeAfter(rt.Config.Assistants.Debounce)
	}
}

// guardedClient is the SSRF-guarded outbound client of webhooks, crawls and tool callbacks.
func guardedClient(cfg Config, opt Options, followRedirects bool) (*http.Client, error) {
	wc := cfg.Webhooks
	return safehttp.NewClient(safehttp.Options{Timeout: wc.Timeout, AllowPrivate: wc.AllowPrivateTargets,
		CAFile: wc.CAFile, Resolver: opt.Resolver, FollowRedirects: followRedirects})
}

// wireWebhooks makes the dispatcher, which sends through the service's guarded sender.
func (rt *Runtime) wireWebhooks(cfg Config, _ Options) error {
	wc := cfg.Webhooks
	observed := observedSender{next: rt.webhookSender, metrics: rt.Metrics, maxAttempts: rt.Service.WebhookPolicy().MaxAttempts()}
	rt.Dispatcher = webhook.NewDispatcher(rt.Service, rt.Service.Clock(), observed, wc.Workers, wc.MaxInFlightPerOrg, wc.Tick, rt.Log)
	return nil
}

// wireKnowledge makes the processor, which crawls through the guarded client.
func (rt *Runtime) wireKnowledge(cfg Config, opt Options) error {
	crawler, err := guardedClient(cfg, opt, true)
	if err != nil {
		return err
	}
	kc := cfg.Knowledge
	owner, err := filepath.Abs(cfg.DB.Path) // marks the children: serve sweeps a dead server's
	if err != nil {
		return err
	}
	extract := &knowledge.Extractor{Log: rt.Log, Owner: owner, Limits: knowledge.Limits{
		Time: time.Duration(kc.MaxExtractSeconds) * time.Second, Pages: kc.MaxPagesPerFile, Bytes: kc.MaxFileBytes}}
	rt.Knowledge = &knowledge.Processor{Service: rt.Service, HTTP: crawler, Extract: extract, Tick: kc.Tick,
		Workers: kc.Workers, PerOrg: kc.MaxInFlightPerOrg, Log: rt.Log}
	return nil
}

// Start runs the background workers until Close.
func (rt *Runtime) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	rt.stop = cancel
	rt.stopped = make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(10)
	go func() { defer wg.Done(); rt.runSMTP(ctx) }()
	go func() { defer wg.Done(); rt.Mailbox.Run(ctx) }()
	go func() { defer wg.Done(); rt.Delivery.Run(ctx) }()
	go func() { defer wg.Done(); rt.Inbound.Run(ctx) }()
	go func() { defer wg.Done(); rt.Hub.Run(ctx) }()
	go func() { defer wg.Done(); rt.Knowledge.Run(ctx) }()
	go func() { defer wg.Done(); rt.Runner.Run(ctx) }()
	go func() { defer wg.Done(); rt.Dispatcher.Run(ctx) }()
	go func() { defer wg.Done(); rt.Sender.Run(ctx) }()
	go func() { defer wg.Done(); rt.Janitor.Run(ctx) }()
	go func() {
		wg.Wait()
		close(rt.stopped)
	}()
	// Work a previous process left (due retries, recipients, runs, lapsed leases) is claimed
	// now, not after the first tick: no commit of this process has nudged anyone yet.
	rt.NudgeWorkers()
	rt.ready.Store(true)
}

// Stop ends the workers and waits for them until ctx ends. A worker still busy then is left
// behind: the process is about to exit, and the lease of its item brings the item back
// after the restart, so a stuck worker never keeps the process alive.
func (rt *Runtime) Stop(ctx context.Context) error {
	if rt.stop == nil {
		return nil
	}
	rt.stop()
	rt.stop = nil
	select {
	case <-rt.stopped:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("workers still busy at the end of the shutdown: %w", ctx.Err())
	}
}

// Close stops the workers, waits for them, ends idle SMTP connections and closes the
// database. After a Stop that gave up on a stuck worker it leaves the database open for that
// worker (the process exits next; SQLite's WAL makes that safe) instead of waiting again.
func (rt *Runtime) Close() error {
	rt.Drain()
	if err := rt.Stop(context.Background()); err != nil {
		return err
	}
	if rt.stopped != nil {
		select {
		case <-rt.stopped:
		default:
			return errors.New("cli: workers still running; the database is left to the exit")
		}
	}
	if rt.mailer != nil {
		rt.mailer.Close()
	}
	return rt.closeStores()
}

// closeStores closes the database and the spool.
func (rt *Runtime) closeStores() error {
	var err error
	if rt.Spool != nil {
		err = rt.Spool.Close()
	}
	return errors.Join(rt.DB.Close(), err)
}
