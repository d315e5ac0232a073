package cli

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/spf13/viper"

	"wsapi/app"
	"wsapi/app/api"
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

	stop    context.CancelFunc
	stopped chan struct{}
}

// Options are what a caller may inject: a clock (tests move time) and a logger.
type Options struct {
	Clock app.Clock
	Log   *slog.Logger
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
	db, err := sqlite.Open(cfg.DB.Path)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, func(r sqlite.MigrationResult) {
		log.Info("migration applied", "name", r.Name, "duration", r.Duration)
	}); err != nil {
		db.Close()
		return nil, err
	}
	svc := app.NewService(db, opt.Clock, log)
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
	}, log)
	return &Runtime{Config: cfg, DB: db, Service: svc, Handler: handler, Log: log}, nil
}

// Start runs the background workers until Close.
func (rt *Runtime) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	rt.stop = cancel
	rt.stopped = make(chan struct{})
	go func() {
		defer close(rt.stopped)
		<-ctx.Done()
	}()
}

// Close stops the workers, waits for them, and closes the database.
func (rt *Runtime) Close() error {
	if rt.stop != nil {
		rt.stop()
		<-rt.stopped
	}
	return rt.DB.Close()
}
