package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"time"

	"wsapi/app"
)

// IdempotencyStore keeps the answers of POSTs made with an Idempotency-Key
// (sqlite/idempotency.go).
type IdempotencyStore interface {
	ClaimIdempotencyKey(ctx context.Context, k app.IdempotencyKey, hash string, now, expiredBefore, staleBefore time.Time) (app.StoredResponse, bool, error)
	SaveIdempotentResponse(ctx context.Context, k app.IdempotencyKey, r app.StoredResponse) error
	ReleaseIdempotencyKey(ctx context.Context, k app.IdempotencyKey) error
}

// idempotencyStale is how long a claimed key whose request never finished blocks retries:
// after it, the request is taken to have died with its process and a retry runs again.
const idempotencyStale = 5 * time.Minute

const idempotencyHeader = "Idempotency-Key"

// runHandler runs the route's handler and writes its error. An authenticated POST that
// carries an Idempotency-Key runs at most once per organization, key and route (Stripe's
// convention, docs/api-conventions.md): the first answer is stored and a retry with the same
// request gets it again with Idempotent-Replayed: true.
func (s *Server) runHandler(rt *route, rq *Request) {
	serve := func() {
		if err := app.JoinProblems(rt.handle(rq), rq.problems); err != nil {
			writeError(rq.W, rq.R, err)
		}
	}
	_, given := rq.R.Header[http.CanonicalHeaderKey(idempotencyHeader)]
	if !given || rt.method != http.MethodPost || rt.public || s.cfg.Ops.Idempotency == nil {
		serve()
		return
	}
	if err := s.idempotent(rt, rq, serve); err != nil {
		writeError(rq.W, rq.R, err)
	}
}

func (s *Server) idempotent(rt *route, rq *Request, serve func()) error {
	key := rq.R.Header.Get(idempotencyHeader)
	if n := len(key); n < 1 || n > 255 {
		return app.Invalid(idempotencyHeader, "must be 1 to 255 characters")
	}
	hash, err := s.requestHash(rt, rq)
	if err != nil {
		return err
	}
	store := s.cfg.Ops.Idempotency
	k := app.IdempotencyKey{OrgID: rq.Org(), Key: key, Route: rt.method + " " + rt.path}
	now := s.svc.Clock().Now()
	prev, claimed, err := store.ClaimIdempotencyKey(rq.Ctx(), k, hash, now, now.Add(-app.IdempotencyTTL), now.Add(-idempotencyStale))
	if err != nil {
		return err
	}
	if !claimed {
		return s.replay(rt, rq, prev, hash)
	}
	rec := &responseCapture{ResponseWriter: rq.W}
	rq.W = rec
	saved := false
	defer func() { // also when the handler panics: a retry must not wait for a dead claim
		if !saved {
			if err := store.ReleaseIdempotencyKey(context.WithoutCancel(rq.Ctx()), k); err != nil {
				logFrom(rq.R).Error("idempotency: release", "err", err)
			}
		}
	}()
	serve()
	if !storable(rec.status) {
		return nil
	}
	resp := app.StoredResponse{Status: rec.status, ContentType: rec.Header().Get("Content-Type"), Body: rec.body.Bytes()}
	if err := store.SaveIdempotentResponse(context.WithoutCancel(rq.Ctx()), k, resp); err != nil {
		logFrom(rq.R).Error("idempotency: save", "err", err)
		return nil // the client has its answer; the claim is released for a retry
	}
	saved = true
	return nil
}

// storable: 2xx and 4xx answers are kept, as Stripe does, except 409 and 429, which say
// "not now" and may well go otherwise on a retry; 5xx are not kept, so a retry runs again.
func storable(status int) bool {
	switch {
	case status >= 200 && status < 300:
		return true
	case status == http.StatusConflict, status == http.StatusTooManyRequests:
		return false
	}
	return status >= 400 && status < 500
}

// requestHash hashes what makes the request: the path, the API key making it (so a key
// reused by another API key or on another object reads as a different request) and the body,
// read within the route's own bound. A route that takes no body has none read, whatever the
// client sends (the audit's 16 MiB bodies sent to such routes held that much memory each);
// a body is read once and kept for the handler (Request.Decode).
func (s *Server) requestHash(rt *route, rq *Request) (string, error) {
	var body []byte
	if rt.body {
		var err error
		if body, err = readBody(rq.W, rq.R, rq.limit); err != nil {
			return "", err
		}
		rq.body = body
		rq.R.Body = io.NopCloser(bytes.NewReader(body)) // handlers that read the request themselves
	}
	h := sha256.New()
	for _, part := range []string{rq.Caller.Principal.Key.ID, rq.R.URL.Path, rq.R.Header.Get("Content-Type")} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// replay answers a retry from the stored first answer, or says why it cannot.
func (s *Server) replay(rt *route, rq *Request, prev app.StoredResponse, hash string) error {
	if prev.RequestHash != hash {
		return &app.Error{Code: app.CodeConflict, Message: "this Idempotency-Key was used with a different request",
			Fields: map[string]string{idempotencyHeader: "was used with a different request body, path or API key"}}
	}
	if !prev.Done {
		return &app.Error{Code: app.CodeConflict, Message: "a request with this Idempotency-Key is still running; retry later",
			Fields: map[string]string{idempotencyHeader: "is in use by a request still running"}}
	}
	if rt.secret != nil && prev.Status < 300 {
		current, err := rt.secret(rq.Ctx(), rq.Org(), prev.Body)
		if err != nil {
			return err
		}
		if !current {
			return errSecretGone
		}
	}
	if m := s.cfg.Ops.Metrics; m != nil {
		m.replays.Inc()
	}
	h := rq.W.Header()
	if prev.ContentType != "" {
		h.Set("Content-Type", prev.ContentType)
	}
	h.Set("Idempotent-Replayed", "true")
	rq.W.WriteHeader(prev.Status)
	rq.W.Write(prev.Body) // the client may be gone; nothing left to tell it
	return nil
}

// responseCapture passes an answer through and keeps a copy of its status and body.
type responseCapture struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *responseCapture) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseCapture) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *responseCapture) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes a flush through (a POST that streams its answer).
func (w *responseCapture) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}
