package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/crypto/acme/autocert"

	"wsapi/app"
	"wsapi/app/web"
)

func serveCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Migrate the database, then serve the API and run the workers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			// After the first signal a second one ends the process at once, as by default.
			context.AfterFunc(ctx, stop)
			raiseProcs(e.logger())
			return e.serve(ctx, nil)
		},
	}
	cmd.Flags().String("addr", "", "listen address (overrides http.addr)")
	return cmd
}

// serve runs until ctx ends, then drains in-flight requests and stops the workers, both
// within http.shutdown_timeout.
// ready, when set, is told the address once the listener is open (tests use port 0).
func (e *env) serve(ctx context.Context, ready func(addr string)) error {
	log := e.logger()
	if err := e.cfg.Metrics.check(); err != nil {
		return err
	}
	e.logConfiguration(log)
	unlock, err := lockServe(e.cfg.DB.Path)
	if err != nil {
		return err
	}
	defer unlock()
	access := newLogBuffer(e.stderr, logFlushInterval)
	defer access.Close() // after the drain: the last requests' lines too
	rt, err := Build(ctx, e.cfg, Options{Log: log, AccessLog: e.loggerTo(access)})
	if err != nil {
		return err
	}
	defer rt.Close()
	warnFileLimit(log, e.cfg.HTTP.MaxConnections)
	sweepExtractors(rt)
	srv := newHTTPServer(e.cfg.HTTP, rt.Handler)
	srv.RegisterOnShutdown(rt.Hub.Close) // open streams end, so the drain does not wait on them
	// Bind before the first-start banner: a taken port must not cost the only showing of the
	// first admin token.
	ln, err := e.listen(srv)
	if err != nil {
		return err
	}
	if err := rt.OpenInbound(); err != nil { // a taken SMTP port fails the start too
		ln.Close()
		return err
	}
	if err := e.bootstrap(ctx, rt, ln.Addr().String()); err != nil {
		ln.Close()
		return err
	}
	rt.Start()
	stopMetrics, err := serveMetrics(ctx, e.cfg.Metrics, rt.Metrics, log)
	if err != nil {
		return err
	}
	defer stopMetrics()
	stopPprof, err := servePprof(ctx, e.cfg.Debug.PprofAddr, log)
	if err != nil {
		return err
	}
	defer stopPprof()
	log.Info("serving", "addr", ln.Addr().String(), "db", e.cfg.DB.Path, "version", Version)
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	return e.shutdown(srv, rt, errc)
}

// shutdown drains the HTTP server and stops the workers at the same time, each for at most
// http.shutdown_timeout: connections still open then are closed, and workers still busy are
// left to the exit (their leases bring their work back). So the process always ends within
// the timeout, whatever a request or a worker is stuck in. /readyz answers 503 first, for
// http.drain_delay, so a load balancer stops sending before the listener closes.
func (e *env) shutdown(srv *http.Server, rt *Runtime, errc <-chan error) error {
	log := rt.Log
	rt.Drain()
	if d := e.cfg.HTTP.DrainDelay; d > 0 {
		log.Info("draining: /readyz answers 503 before the listener closes", "delay", d)
		time.Sleep(d) // requests keep being served meanwhile
	}
	timeout := e.cfg.HTTP.ShutdownTimeout
	log.Info("shutting down: draining in-flight requests and stopping workers", "timeout", timeout)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	workers := make(chan error, 1)
	go func() { workers <- rt.Stop(ctx) }()
	err := srv.Shutdown(ctx)
	if err != nil {
		log.Warn("shutdown: requests still in flight at the timeout; closing their connections", "err", err)
		srv.Close()
	}
	// The event streams served off net/http (hijacked) end with the hub, which Shutdown
	// closed; its drain does not wait for them.
	if err := rt.API.WaitStreams(ctx); err != nil {
		log.Warn("shutdown: event streams still open at the timeout", "err", err)
	}
	if serveErr := <-errc; serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	if werr := <-workers; werr != nil {
		log.Warn("shutdown: exiting without waiting longer", "err", werr)
		return nil
	}
	log.Info("stopped")
	return nil
}

// listen opens the TCP listener, wrapped in TLS from files or ACME when configured.
func (e *env) listen(srv *http.Server) (net.Listener, error) {
	ln, err := net.Listen("tcp", e.cfg.HTTP.Addr)
	if err != nil {
		return nil, fmt.Errorf("serve: listen %s: %w", e.cfg.HTTP.Addr, err)
	}
	ln = limitConnections(ln, e.cfg.HTTP)
	tlsc := e.cfg.HTTP.TLS
	switch {
	case tlsc.CertFile != "":
		cert, err := tls.LoadX509KeyPair(tlsc.CertFile, tlsc.KeyFile)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("serve: tls: %w", err)
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	case len(tlsc.ACMEDomains) > 0:
		// TLS-ALPN-01 answers on this same listener, so http.addr must be reachable on :443.
		m := &autocert.Manager{
			Prompt:     autocert.AcceptTOS,
			HostPolicy: autocert.HostWhitelist(tlsc.ACMEDomains...),
			Cache:      autocert.DirCache(filepath.Join(filepath.Dir(e.cfg.DB.Path), "acme")),
		}
		srv.TLSConfig = m.TLSConfig()
	default:
		return ln, nil
	}
	return tls.NewListener(ln, srv.TLSConfig), nil
}

// bootstrap makes the Default organization and first admin key on an empty database and
// shows the token once on stderr, never through the logger, with the owner's one-time link
// to set a password and sign in to the web app.
func (e *env) bootstrap(ctx context.Context, rt *Runtime, addr string) error {
	nk, created, err := rt.Service.Bootstrap(ctx, "bootstrap admin key")
	if err != nil || !created {
		return err
	}
	base := tryURL(e.cfg.HTTP.PublicURL, addr)
	token, owner, err := rt.SignIn.OwnerSetupLink(ctx, nk.OrgID)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, `
================================================================================
  First start: created organization %q (%s), its owner and an admin key.

  Sign in to the inbox: open this link within the hour to set the owner's
  (%s) password. It works once:

      %s

  Missed it? Run: app members password %s

  API admin token, shown once. Store it now:

      %s

  Try: curl -H "Authorization: Bearer %s" %s/orgs/c
================================================================================

`, app.DefaultOrgName, nk.OrgID, owner.Email, web.SetupURL(base, token), owner.Email, nk.Token, nk.Token, base)
	return nil
}

// tryURL is where the banner's example reaches the server: the public URL, unless it was
// derived from a listen address with port 0, which only the bound listener knows.
func tryURL(publicURL, boundAddr string) string {
	if strings.HasSuffix(publicURL, ":0") {
		scheme, _, _ := strings.Cut(publicURL, "://")
		return scheme + "://" + boundAddr
	}
	return publicURL
}

// sweepExtractors kills the extraction children a dead server on this database left behind,
// before the processor starts new ones (knowledge.Extractor.SweepLeftovers).
func sweepExtractors(rt *Runtime) {
	n, err := rt.Knowledge.Extract.SweepLeftovers()
	if err != nil {
		rt.Log.Warn("knowledge: could not end extraction children a previous server left", "err", err)
	}
	if n > 0 {
		rt.Log.Warn("knowledge: ended extraction children a previous server left running", "count", n)
	}
}

// logConfiguration says what this start runs on: the configuration file read (none: the
// defaults and APP_* variables), the database, and the model that answers by default.
func (e *env) logConfiguration(log *slog.Logger) {
	file := e.configRead
	if file == "" {
		file = "none (defaults, APP_* environment, flags)"
	}
	m := e.cfg.Models
	log.Info("configuration", "config", file, "db", e.cfg.DB.Path, "default_model", m.DefaultModel(),
		"fallback_model", m.Fallback, "providers", strings.Join(slices.Sorted(maps.Keys(m.Providers)), ","))
}
