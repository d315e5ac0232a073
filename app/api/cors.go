package api

import (
	"net/http"
	"slices"

	"github.com/rs/cors"
)

// exposedHeaders are the answer headers a browser script may read: pagination, the rate
// limit, the request id and the idempotent replay flag.
var exposedHeaders = []string{"pagination-count", "pagination-page", "pagination-take", "pagination-next",
	"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After", "X-Request-Id", "Idempotent-Replayed"}

// cors lets the browser origins of http.cors.allowed_origins call the API (rs/cors). It runs
// before routing because the router answers OPTIONS with 405: a preflight is answered here
// (204, with the CORS headers only for an allowed origin). With no origins configured it is
// off: browsers then refuse cross-origin calls, as before. Credentials (cookies, TLS client
// certificates) are allowed only with a list of named origins, never with "*"; the API's own
// credential is a bearer token, which needs no credentials mode.
func (s *Server) cors(next http.Handler) http.Handler {
	origins := s.cfg.Ops.CORSOrigins
	if len(origins) == 0 {
		return next
	}
	c := cors.New(cors.Options{
		AllowedOrigins:   origins,
		AllowedMethods:   []string{get, http.MethodHead, post, put, patch, del},
		AllowedHeaders:   []string{"Authorization", "Content-Type", "Idempotency-Key", "X-Request-Id", "Last-Event-ID"},
		ExposedHeaders:   exposedHeaders,
		AllowCredentials: !slices.Contains(origins, "*"),
		MaxAge:           600,
	})
	return c.Handler(next)
}
