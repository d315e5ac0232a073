package api

import (
	"net/http"
)

// Ops are the operational features around the routes: metrics, CORS, compression,
// readiness and idempotency keys. cli fills them from the configuration; the zero value
// turns each one off.
type Ops struct {
	// Metrics are counted when set; MetricsToken also serves them at GET /metrics on this
	// handler to a bearer of that token.
	Metrics      *Metrics
	MetricsToken string
	// CORSOrigins are the browser origins allowed to call the API ("*": any).
	CORSOrigins []string
	// Compress turns on gzip/zstd for JSON answers over 1 KiB.
	Compress bool
	// KeptAnswers keeps GET contact and contact pages encoded and answers from them while
	// nothing they are made of has changed (kept.go); false: each one is read and encoded.
	KeptAnswers bool
	// Ready tells whether the process takes traffic (migrated, workers started, not
	// draining); nil: always.
	Ready func() bool
	// Idempotency stores the answers of POSTs that carry an Idempotency-Key; nil: the
	// header is ignored.
	Idempotency IdempotencyStore
}

// wrap puts the middleware around the router, outermost first: the request log (which
// gives the request its id), panic recovery, metrics, CORS (preflights are answered before
// routing), compression, the body guard (deadlines, no draining), the rate limit and the
// token-guarded /metrics. Each wrapper of the ResponseWriter has Unwrap, so handlers reach
// the connection with http.ResponseController.
func (s *Server) wrap(router http.Handler) http.Handler {
	h := s.metricsEndpoint(router)
	h = s.rateLimit(h)
	h = s.guardBodies(h)
	h = s.compress(h)
	h = s.cors(h)
	h = s.instrument(h)
	h = recoverPanics(h)
	return s.logRequests(h)
}

// readyz answers 200 once the process takes traffic and 503 while it starts or drains, so
// that a load balancer stops sending before the listener closes.
func (s *Server) readyz(rq *Request) error {
	if ready := s.cfg.Ops.Ready; ready != nil && !ready() {
		return rq.JSON(http.StatusServiceUnavailable, map[string]string{"status": "not_ready"})
	}
	if err := s.db.Ping(rq.Ctx()); err != nil {
		s.log.Error("readiness check failed", "err", err)
		return rq.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
	}
	return rq.JSON(http.StatusOK, map[string]string{"status": "ready"})
}
