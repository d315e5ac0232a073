package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// DebugConfig holds the operator's diagnostics.
type DebugConfig struct {
	// PprofAddr serves net/http/pprof on its own listener; empty: nowhere. Never on the API's
	// listener: profiles show paths, goroutine stacks and timings an API client must not see.
	PprofAddr string `mapstructure:"pprof_addr"`
}

// servePprof serves /debug/pprof/ on addr until stop; with no address it does nothing. The
// handlers are mounted on a mux of their own (not http.DefaultServeMux, which importing
// net/http/pprof fills), so nothing else can reach them. No write timeout: a CPU profile or a
// trace streams for as many seconds as asked.
func servePprof(ctx context.Context, addr string, log *slog.Logger) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("serve: pprof listen %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("POST /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("pprof listener", "err", err)
		}
	}()
	log.Warn("serving pprof: keep this address private", "addr", ln.Addr().String())
	return func() {
		shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}, nil
}
