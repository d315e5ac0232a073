package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/viper"

	"wsapi/app"
	"wsapi/app/api"
	"wsapi/app/assist"
	"wsapi/app/janitor"
	"wsapi/app/knowledge"
	"wsapi/app/mail"
	"wsapi/app/oauth"
	"wsapi/app/secret"
	"wsapi/app/stream"
	"wsapi/app/webhook"
	"wsapi/sqlite"
)

// Runtime is the wired application: store, domain service, HTTP handler and background
// workers. serve runs one; the end-to-end test harness builds the very same.
type Runtime struct {
	Config  Config
	DB      *sqlite.DB
	Service *app.Service
	Handler http.Handler
	Log     *slog.Logger

	Dispatcher *webhook.Dispatcher
	Sender     *mail.Worker
	Knowledge  *knowledge.Processor
	Janitor    *janitor.Janitor
	Hub        *stream.Hub
	Runner     *assist.Runner
	Metrics    *api.Metrics

	ready atomic.Bool // /readyz: started and not draining

	mailer  *mail.Mailer
	stop    context.CancelFunc
	stopped chan struct{}
}

// Options are what a caller may inject: a clock (tests move time) and a logger.
type Options struct {
	Clock app.Clock
	Log   *slog.Logger
	// Resolver replaces the system DNS resolver for webhook targets (tests).
	Resolver app.Resolver
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
	svc := app.NewService(db, opt.Clock, log)
	svc.CacheInbox(cfg.DB.InboxCacheChats)
	db.CacheChats(cfg.DB.InboxCacheChats)
	rt := &Runtime{Config: cfg, DB: db, Service: svc, Log: log}
	rt.wireOps()
	if err := rt.wire(cfg, opt); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.CheckSealer(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("the secrets key %s cannot open the secrets stored in %s (%w); "+
			"start with the key this database was used with (a backup's key is the FILE.key beside it)",
			cfg.keyFile(), cfg.DB.Path, err)
	}
	proxies, err := cfg.trustedProxies()
	if err != nil {
		db.Close()
		return nil, err
	}
	handler := api.New(svc, db, api.Config{
		MaxBodyBytes:       cfg.HTTP.MaxBodyBytes,
		RateLimitPerMinute: cfg.HTTP.RateLimitPerMinute,
		TrustedProxies:     proxies,
		Version:            Version,
		BodyTimeout:        cfg.HTTP.ReadTimeout,
		MinBodyRate:        cfg.HTTP.MinBodyRate,
		WriteTimeout:       cfg.HTTP.WriteTimeout,
		Hub:                rt.Hub,
		StreamHeartbeat:    cfg.Events.StreamHeartbeat,
		Ops:                rt.apiOps(cfg),
	}, log)
	rt.Handler = handler
	return rt, nil
}

// wire connects the service to its collaborators and makes the background workers.
func (rt *Runtime) wire(cfg Config, opt Options) error {
	box, err := secret.LoadOrCreate(cfg.keyFile())
	if err != nil {
		return err
	}
	rt.DB.SetSealer(box)
	rt.Service.Tokens = box.Signer()
	rt.Service.PublicURL = cfg.HTTP.PublicURL
	for _, step := range []func(Config, Options) error{rt.wireWebhooks, rt.wireEmail, rt.wireKnowledge, rt.wireAssistants} {
		if err := step(cfg, opt); err != nil {
			return err
		}
	}
	rt.wireOAuth(cfg)
	// Every commit that queues background work wakes the workers at once.
	rt.DB.OnWorkQueued(rt.NudgeWorkers)
	rt.wireStream(cfg)
	rt.Runner.Live = rt.Hub // streamed text reaches the chat streams as it arrives
	rt.Janitor = &janitor.Janitor{Interval: time.Minute, Log: rt.Log, Tasks: []janitor.Task{
		{Name: "webhook delivery retention", Run: rt.Service.PurgeDeliveries},
		{Name: "temporary chats", Run: rt.Service.PurgeTemporaryChats},
		{Name: "stream event retention", Run: rt.Service.PurgeStreamEvents},
		rt.purgeIdempotencyKeys(),
		{Name: "assistant auto resolve", Run: rt.Service.AutoResolveChats},
		{Name: "assistant follow-ups", Run: rt.Service.SendFollowUps},
	}}
	return nil
}

// NudgeWorkers wakes the webhook, e-mail and run workers to claim now rather than on their
// next tick: after a commit that queued work, and in tests after the manual clock moved.
func (rt *Runtime) NudgeWorkers() {
	rt.Dispatcher.Nudge()
	rt.Sender.Nudge()
	rt.Runner.Nudge()
}

// wireStream makes the event hub behind the SSE routes; every commit that wrote stream
// events wakes it.
func (rt *Runtime) wireStream(cfg Config) {
	rt.Hub = stream.New(rt.DB, stream.Options{Buffer: cfg.Events.StreamBuffer, Log: rt.Log})
	rt.DB.OnStreamed(rt.Hub.Nudge)
	rt.Service.LiveTexts = rt.Hub
	rt.Service.StreamRetention = cfg.Events.StreamRetention
}

// guardedClient is the SSRF-guarded outbound client of webhooks and crawls.
func guardedClient(cfg Config, opt Options, followRedirects bool) (*http.Client, error) {
	wc := cfg.Webhooks
	return webhook.NewHTTPClient(webhook.ClientOptions{Timeout: wc.Timeout, AllowPrivate: wc.AllowPrivateTargets,
		CAFile: wc.CAFile, Resolver: opt.Resolver, FollowRedirects: followRedirects})
}

// wireWebhooks sets the delivery policy, the guarded sender and the dispatcher.
func (rt *Runtime) wireWebhooks(cfg Config, opt Options) error {
	wc := cfg.Webhooks
	rt.Service.Webhooks = app.WebhookPolicy{RetrySchedule: wc.RetrySchedule, DisableAfter: wc.DisableAfter,
		Timeout: wc.Timeout, Retention: wc.Retention, AllowPrivateTargets: wc.AllowPrivateTargets}
	rt.Service.Resolver = opt.Resolver
	client, err := guardedClient(cfg, opt, false)
	if err != nil {
		return err
	}
	sender := &webhook.Sender{HTTP: client, Clock: rt.Service.Clock}
	rt.Service.Sender = sender
	observed := observedSender{next: sender, metrics: rt.Metrics, maxAttempts: rt.Service.Webhooks.MaxAttempts()}
	rt.Dispatcher = webhook.NewDispatcher(rt.Service, observed, wc.Workers, wc.MaxInFlightPerOrg, wc.Tick, rt.Log)
	return nil
}

// wireKnowledge makes the processor, which crawls through the guarded client.
func (rt *Runtime) wireKnowledge(cfg Config, opt Options) error {
	crawler, err := guardedClient(cfg, opt, true)
	if err != nil {
		return err
	}
	kc := cfg.Knowledge
	extract := &knowledge.Extractor{Log: rt.Log, Limits: knowledge.Limits{
		Time: time.Duration(kc.MaxExtractSeconds) * time.Second, Pages: kc.MaxPagesPerFile, Bytes: kc.MaxFileBytes}}
	rt.Knowledge = &knowledge.Processor{Service: rt.Service, HTTP: crawler, Extract: extract, Tick: kc.Tick,
		Workers: kc.Workers, PerOrg: kc.MaxInFlightPerOrg, Log: rt.Log}
	rt.Service.KnowledgeMaxPages = cfg.Knowledge.MaxPages
	return nil
}

// wireOAuth registers the configured providers; viper lowercases map keys, types are upper.
func (rt *Runtime) wireOAuth(cfg Config) {
	rt.Service.OAuthClient = oauth.New()
	rt.Service.OAuth = map[string]app.OAuthProvider{}
	for typ, p := range cfg.OAuth.Providers {
		rt.Service.OAuth[strings.ToUpper(typ)] = app.OAuthProvider{ClientID: p.ClientID, ClientSecret: p.ClientSecret,
			AuthURL: p.AuthURL, TokenURL: p.TokenURL, UserinfoURL: p.UserinfoURL, APIURL: p.APIURL, Scopes: p.Scopes}
	}
}

// Start runs the background workers until Close.
func (rt *Runtime) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	rt.stop = cancel
	rt.stopped = make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(6)
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
	return rt.DB.Close()
}

// wireEmail sets the DNS resolver for domain checks, the SMTP mailer (when email.smtp_url is
// set) and the broadcast sender.
func (rt *Runtime) wireEmail(cfg Config, _ Options) error {
	rt.Service.DNS = net.DefaultResolver
	if addr := cfg.DNS.Resolver; addr != "" {
		rt.Service.DNS = newConfiguredDNS(addr)
	}
	if cfg.Email.SMTPURL != "" {
		if !strings.HasPrefix(cfg.HTTP.PublicURL, "https://") {
			rt.Log.Warn("email is configured but http.public_url is not https: unsubscribe links are plain http "+
				"and mail goes out without RFC 8058 one-click unsubscribe (List-Unsubscribe-Post); set http.public_url",
				"public_url", cfg.HTTP.PublicURL)
		}
		m, err := mail.New(cfg.Email.SMTPURL, cfg.Email.CAFile, cfg.Email.Workers, rt.Service.Clock)
		if err != nil {
			return err
		}
		rt.Service.Mailer, rt.mailer = m, m
	}
	rt.Sender = mail.NewWorker(rt.Service, cfg.Email.Workers, cfg.Email.MaxInFlightPerOrg, cfg.Email.Tick, rt.Log)
	return nil
}
