package api

import (
	"cmp"
	"errors"
	"net/http"
	"strconv"
	"time"

	"wsapi/app"
	"wsapi/app/budget"
)

// streamRetryAfter is the Retry-After of a refused stream. Slots free as other streams close,
// which nothing schedules; a client that honours it does not hammer a full server.
const streamRetryAfter = 10 * time.Second

// holdStream takes the stream's slot of the budget, under its API key, its member and its
// client IP, before anything is subscribed: a caller past a cap gets 429 with Retry-After at
// once instead of an open response that holds a connection (docs/operations.md, "Streams").
func (s *Server) holdStream(rq *Request) (release func(), err error) {
	if s.cfg.Streams == nil {
		return func() {}, nil
	}
	release, err = s.cfg.Streams.Acquire(
		budget.Key{Kind: budget.KindKey, Value: rq.Caller.Key.ID},
		budget.Key{Kind: budget.KindMember, Value: rq.Caller.Member.ID},
		budget.Key{Kind: budget.KindIP, Value: clientIP(rq.R, s.cfg.TrustedProxies)},
	)
	var full *budget.FullError
	if errors.As(err, &full) {
		if m := s.cfg.Ops.Metrics; m != nil {
			m.streamsRefused.WithLabelValues(cmp.Or(full.Kind, "server")).Inc()
		}
		return nil, StreamsFull(rq.W.Header(), full)
	}
	return release, err
}

// StreamsFull is the 429 of a stream refused by the budget, with its Retry-After set on h;
// a streaming route of another package (the widget) answers it the same way.
func StreamsFull(h http.Header, full *budget.FullError) error {
	after := strconv.Itoa(int(streamRetryAfter / time.Second))
	h.Set("Retry-After", after)
	holder := map[string]string{"": "the server", budget.KindKey: "this API key",
		budget.KindMember: "this key's member", budget.KindIP: "this client address"}[full.Kind]
	if holder == "" {
		holder = "this " + full.Kind
	}
	return &app.Error{Code: codeRateLimited, Message: "too many open event streams for " + holder +
		" (at most " + strconv.Itoa(full.Limit) + "); close one, or retry after " + after + " s"}
}
