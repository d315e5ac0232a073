package api

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"sync"
	"time"

	"wsapi/app"
	"wsapi/app/stream"
)

// defaultStreamAuthCheck is how often open streams look for a revocation: well within the
// second the spec's "deleting a key revokes access immediately" allows a stream.
const defaultStreamAuthCheck = 250 * time.Millisecond

// streamGuard ends open streams whose principal has changed since they were opened: a key
// deleted or rotated, a member deleted, a role changed, a widget visitor's session gone. A
// request meets such a change on its next authentication; a stream authenticates once and would
// go on receiving events for hours, so it is checked again, while it is open, whenever the
// authentication version moves (any change to a key, a member or a role, and the end of a
// widget session or of its widget, by any process: app/authcache.go,
// sqlite/migrations/00040_visitor_stream_revocation.sql). Reading that version costs nothing
// while nothing was committed (the WAL index's stamp), and each token whose streams are open is
// authenticated again once per change, from the principal cache: no stream polls on its own.
//
// A stream whose token no longer authenticates, or whose member or permissions differ, is
// ended; the client's reconnection then meets the new state (401, 403, 404, or a stream
// filtered by its new permissions). The loop runs only while streams are open.
type streamGuard struct {
	svc   *app.Service
	every time.Duration
	log   *slog.Logger

	mu      sync.Mutex
	tokens  map[string]*guarded // the open streams, by the token (and its kind) they were opened with
	running bool
}

// guarded is the open streams of one token.
type guarded struct {
	checked int64 // the authentication version they were last checked at; 0: not yet
	recheck recheck
	streams map[*openStream]struct{}
}

// recheck authenticates a token again and answers which of its streams may go on; an error
// other than a revocation leaves them open, to be checked again on the next round.
type recheck func(ctx context.Context) (keep func(*openStream) bool, err error)

// openStream is one stream: the principal it was opened as (API keys), and how to end it.
type openStream struct {
	p   app.Principal
	end func()
}

func newStreamGuard(svc *app.Service, every time.Duration, log *slog.Logger) *streamGuard {
	if every <= 0 {
		every = defaultStreamAuthCheck
	}
	return &streamGuard{svc: svc, every: every, log: log, tokens: map[string]*guarded{}}
}

// watchRevocation keeps the stream of sub under watch until the returned func is called;
// a revocation ends the subscription, which ends the response.
func (s *Server) watchRevocation(rq *Request, sub *stream.Subscriber) (stop func()) {
	token, _ := bearerToken(rq.R.Header.Get("Authorization"))
	check := func(ctx context.Context) (func(*openStream) bool, error) {
		p, err := s.svc.Authenticate(ctx, token)
		if errors.Is(err, app.ErrUnauthenticated) {
			return none, nil
		}
		return func(os *openStream) bool { return samePrincipal(os.p, p) }, err
	}
	return s.streams.add("key\x00"+token, check, 0, &openStream{p: rq.Caller.Principal, end: func() { s.cfg.Hub.Unsubscribe(sub) }})
}

// watchVisitor keeps a widget visitor's stream under watch until the returned func is called:
// the stream ends once its session no longer opens (the session, its contact or its
// integration deleted, the assistant deleted: the widget refuses it with 401 or 404). A
// disabled integration keeps its streams. version is the authentication version read before
// the session was: it is checked again only once the version moves past it.
func (s *Server) watchVisitor(deploymentID, token string, version int64, sub *stream.Subscriber) (stop func()) {
	check := func(ctx context.Context) (func(*openStream) bool, error) {
		_, err := s.svc.VisitorByToken(ctx, deploymentID, token)
		if e, ok := app.AsError(err); ok && (e.Code == app.CodeNotFound || e.Code == app.CodeUnauthenticated) {
			return none, nil
		}
		return func(*openStream) bool { return true }, err
	}
	return s.streams.add("visitor\x00"+deploymentID+"\x00"+token, check, version, &openStream{end: func() { s.cfg.Hub.Unsubscribe(sub) }})
}

func none(*openStream) bool { return false }

// add watches one stream. Its token is checked on the next round unless the version is still
// at, the version read before the stream authenticated (0: unknown; any version), so a change
// committed between the stream's authentication and now is not missed.
func (g *streamGuard) add(token string, check recheck, at int64, os *openStream) (stop func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gr := g.tokens[token]
	if gr == nil {
		gr = &guarded{recheck: check, streams: map[*openStream]struct{}{}}
		g.tokens[token] = gr
	}
	if len(gr.streams) == 0 || at == 0 || at < gr.checked {
		gr.checked = at // never later than what this stream's authentication saw
	}
	gr.streams[os] = struct{}{}
	if !g.running {
		g.running = true
		go g.run()
	}
	return func() { g.remove(token, os) }
}

func (g *streamGuard) remove(token string, os *openStream) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if gr := g.tokens[token]; gr != nil {
		delete(gr.streams, os)
		if len(gr.streams) == 0 {
			delete(g.tokens, token)
		}
	}
}

// run checks on every tick until no stream is open.
func (g *streamGuard) run() {
	t := time.NewTicker(g.every)
	defer t.Stop()
	for range t.C {
		if !g.round() {
			return
		}
	}
}

// round checks the tokens not yet checked at the current authentication version; false when
// nothing is left to watch (the loop ends, and the next stream starts it again).
func (g *streamGuard) round() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 4*g.every+time.Second)
	defer cancel()
	version, err := g.svc.AuthVersion(ctx)
	g.mu.Lock()
	if len(g.tokens) == 0 {
		g.running = false
		g.mu.Unlock()
		return false
	}
	var due []string
	for token, gr := range g.tokens {
		if err == nil && gr.checked != version {
			due = append(due, token)
		}
	}
	g.mu.Unlock()
	if err != nil {
		app.LogFailure(g.log, "streams: read the authentication version", err)
		return true
	}
	for _, token := range due {
		// A panic checking one token fails that check alone (it is tried again next round),
		// never the process or the other streams' checks.
		err := app.Safely(func() error { g.check(ctx, token, version); return nil })
		if err != nil {
			app.LogFailure(g.log, "streams: check a token again", err)
		}
	}
	return true
}

// check authenticates one token again and ends its streams whose principal is gone or changed.
func (g *streamGuard) check(ctx context.Context, token string, version int64) {
	g.mu.Lock()
	gr := g.tokens[token]
	g.mu.Unlock()
	if gr == nil {
		return // its streams ended meanwhile
	}
	keep, err := gr.recheck(ctx)
	if err != nil {
		app.LogFailure(g.log, "streams: authenticate an open stream again", err)
		return // checked again on the next round
	}
	var ended []*openStream
	g.mu.Lock()
	if gr := g.tokens[token]; gr != nil {
		gr.checked = version
		for os := range gr.streams {
			if !keep(os) {
				ended = append(ended, os)
			}
		}
	}
	g.mu.Unlock()
	for _, os := range ended {
		os.end() // the handler's deferred stop removes it from the watch
	}
}

// samePrincipal: the same key acting as the same member with the same permissions.
func samePrincipal(a, b app.Principal) bool {
	return a.Key.ID == b.Key.ID && a.Member.ID == b.Member.ID && a.Key.OrgID == b.Key.OrgID &&
		maps.Equal(a.Perms, b.Perms)
}
