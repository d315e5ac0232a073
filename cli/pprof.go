package cli

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/pprof"
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
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("POST /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	stop, bound, err := serveAside(ctx, "pprof", addr, mux, log)
	if err != nil {
		return nil, err
	}
	log.Warn("serving pprof: keep this address private", "addr", bound)
	return stop, nil
}
