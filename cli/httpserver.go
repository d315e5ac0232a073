package cli

import (
	"fmt"
	"net"
	"net/http"

	"golang.org/x/net/netutil"
)

// newHTTPServer is the API's http.Server with every limit that keeps slow or idle clients
// from holding the server (docs/operations.md, "HTTP limits"):
//   - ReadHeaderTimeout bounds the TLS handshake and the request line and headers;
//   - there is no server-wide ReadTimeout: the API sets a deadline per request body from its
//     size (http.read_timeout plus the size at http.min_body_rate), so large uploads at a
//     reasonable rate pass while a trickling body is cut (api.Config.BodyTimeout);
//   - WriteTimeout bounds the handler and the response from the end of the headers; a
//     streaming handler (SSE) lifts or renews its own deadline with
//     http.ResponseController.SetWriteDeadline;
//   - IdleTimeout closes kept-alive connections that send nothing;
//   - MaxHeaderBytes bounds the header block.
func newHTTPServer(c HTTPConfig, handler http.Handler) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: c.ReadHeaderTimeout,
		WriteTimeout:      c.WriteTimeout,
		IdleTimeout:       c.IdleTimeout,
		MaxHeaderBytes:    c.MaxHeaderBytes,
	}
}

// limitConnections caps the connections open at once (http.max_connections). Past the cap
// new connections wait in the kernel's accept queue until one closes, so a flood of slow
// clients delays others by at most the timeouts above instead of exhausting file descriptors.
func limitConnections(ln net.Listener, c HTTPConfig) net.Listener {
	return netutil.LimitListener(ln, c.MaxConnections)
}

// validateLimits checks the keys newHTTPServer and the API's body deadlines read.
func (c HTTPConfig) validateLimits() error {
	if c.ReadHeaderTimeout <= 0 || c.ReadTimeout <= 0 || c.WriteTimeout <= 0 || c.IdleTimeout <= 0 {
		return fmt.Errorf("config: http.read_header_timeout, http.read_timeout, http.write_timeout and http.idle_timeout must be positive")
	}
	if c.MinBodyRate < 1 || c.MaxHeaderBytes < 1 || c.MaxConnections < 1 {
		return fmt.Errorf("config: http.min_body_rate, http.max_header_bytes and http.max_connections must be positive")
	}
	return nil
}
