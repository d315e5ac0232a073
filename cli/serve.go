package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/crypto/acme/autocert"

	"wsapi/app"
)

// shutdownGrace bounds how long in-flight requests may take to finish after a signal.
const shutdownGrace = 30 * time.Second

func serveCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Migrate the database, then serve the API and run the workers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return e.serve(ctx, nil)
		},
	}
	cmd.Flags().String("addr", "", "listen address (overrides http.addr)")
	return cmd
}

// serve runs until ctx ends, then drains in-flight requests and stops the workers.
// ready, when set, is told the address once the listener is open (tests use port 0).
func (e *env) serve(ctx context.Context, ready func(addr string)) error {
	log := e.logger()
	rt, err := Build(ctx, e.cfg, Options{Log: log})
	if err != nil {
		return err
	}
	defer rt.Close()
	if err := e.bootstrap(ctx, rt.Service); err != nil {
		return err
	}
	rt.Start()
	stopMetrics, err := serveMetrics(ctx, e.cfg.Metrics.Addr, rt.Metrics, log)
	if err != nil {
		return err
	}
	defer stopMetrics()
	srv := &http.Server{
		Handler:           rt.Handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          nil,
	}
	ln, err := e.listen(srv)
	if err != nil {
		return err
	}
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
	rt.Drain()
	if d := e.cfg.HTTP.DrainDelay; d > 0 {
		log.Info("draining: /readyz answers 503 before the listener closes", "delay", d)
		time.Sleep(d) // requests keep being served meanwhile
	}
	log.Info("shutting down: draining in-flight requests")
	drain, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(drain); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
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
// shows the token once on stderr, never through the logger.
func (e *env) bootstrap(ctx context.Context, svc *app.Service) error {
	nk, created, err := svc.Bootstrap(ctx, "bootstrap admin key")
	if err != nil || !created {
		return err
	}
	fmt.Fprintf(e.stderr, `
================================================================================
  First start: created organization %q (%s) and its admin key.
  This token is shown once. Store it now:

      %s

  Try: curl -H "Authorization: Bearer %s" %s/orgs/c
================================================================================

`, app.DefaultOrgName, nk.OrgID, nk.Token, nk.Token, e.cfg.HTTP.PublicURL)
	return nil
}
