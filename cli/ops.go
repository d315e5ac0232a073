package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/collectors"

	"wsapi/app"
	"wsapi/app/api"
	"wsapi/app/janitor"
)

// MetricsConfig places the Prometheus endpoint: its own listener, or the API's behind a token.
type MetricsConfig struct {
	Addr  string `mapstructure:"addr"`
	Token string `mapstructure:"token"`
}

// check refuses a metrics listener anyone could reach without a credential: metrics.addr
// off loopback (another interface, or every one: ":9090") needs metrics.token, which that
// listener then asks for as the API's /metrics does. Metrics name routes, queues and load:
// not for the open network.
func (m MetricsConfig) check() error {
	if m.Addr == "" || m.Token != "" || loopbackAddr(m.Addr) {
		return nil
	}
	return fmt.Errorf("config: metrics.addr %s is not a loopback address and metrics.token is empty, so anyone who "+
		"reaches it could read the metrics: set metrics.token (APP_METRICS_TOKEN; scrapers then send "+
		"\"Authorization: Bearer <token>\"), or bind metrics.addr to 127.0.0.1", m.Addr)
}

// loopbackAddr tells whether a listen address (host:port) binds loopback only.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// CORSConfig lists the browser origins allowed to call the API.
type CORSConfig struct {
	AllowedOrigins []string `mapstructure:"allowed_origins"`
}

// wireOps makes the runtime's metrics (before the service and the workers, which report to
// them) and hooks the store to them.
func (rt *Runtime) wireOps(clock app.Clock) {
	m := api.NewMetrics()
	rt.Metrics = m
	rt.DB.ObserveWriteWait(m.WriteWait)
	rt.DB.ObserveWriteBatch(m.WriteBatch)
	writer, reader := rt.DB.Pools()
	m.Registry.MustRegister(collectors.NewDBStatsCollector(reader, "reader"), collectors.NewDBStatsCollector(writer, "writer"))
	m.WatchStore(rt.DB, clock)
}

// apiOps is the HTTP layer's share of the operational settings.
func (rt *Runtime) apiOps(cfg Config) api.Ops {
	return api.Ops{Metrics: rt.Metrics, MetricsToken: cfg.Metrics.Token, CORSOrigins: cfg.HTTP.CORS.AllowedOrigins,
		Compress: cfg.HTTP.Compress, KeptAnswers: cfg.HTTP.KeptAnswers, Ready: rt.ready.Load, Idempotency: rt.DB}
}

// purgeIdempotencyKeys is the janitor's task for answers kept past app.IdempotencyTTL.
func (rt *Runtime) purgeIdempotencyKeys() janitor.Task {
	return janitor.Task{Name: "idempotency keys", Run: func(ctx context.Context) (int, error) {
		return rt.DB.PurgeIdempotencyKeys(ctx, rt.Service.Clock().Now().Add(-app.IdempotencyTTL))
	}}
}

// Drain marks the process as leaving: /readyz answers 503 from now on.
func (rt *Runtime) Drain() { rt.ready.Store(false) }

// observedSender counts each webhook attempt's outcome and duration for the metrics.
type observedSender struct {
	next        app.WebhookSender
	metrics     *api.Metrics
	maxAttempts int
}

func (s observedSender) Send(ctx context.Context, j app.Job) app.Attempt {
	start := time.Now()
	a := s.next.Send(ctx, j)
	if ctx.Err() != nil {
		return a // cut short by a shutdown: released, not an attempt
	}
	outcome := "succeeded"
	switch {
	case a.Succeeded():
	case j.Attempt >= s.maxAttempts:
		outcome = "failed"
	default:
		outcome = "retrying"
	}
	s.metrics.WebhookAttempt(outcome, time.Since(start))
	return a
}

// serveMetrics serves /metrics on metrics.addr until ctx ends; with no address it does
// nothing. The listener is plain HTTP without a credential: bind it to loopback or a private
// network only.
func serveMetrics(ctx context.Context, mc MetricsConfig, m *api.Metrics, log *slog.Logger) (stop func(), err error) {
	if mc.Addr == "" {
		return func() {}, nil
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.GuardedHandler(mc.Token))
	stop, bound, err := serveAside(ctx, "metrics", mc.Addr, mux, log)
	if err != nil {
		return nil, err
	}
	log.Info("serving metrics", "addr", bound)
	return stop, nil
}

// serveAside serves h on a listener of its own at addr (metrics, pprof: never the API's);
// stop shuts it down within five seconds.
func serveAside(ctx context.Context, name, addr string, h http.Handler, log *slog.Logger) (stop func(), bound string, err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("serve: %s listen %s: %w", name, addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error(name+" listener", "err", err)
		}
	}()
	return func() {
		shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}, ln.Addr().String(), nil
}
