// Package api is the HTTP layer: the route table, middleware and thin handlers that decode a
// request, call the app.Service and encode the answer.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"wsapi/app"
	"wsapi/app/budget"
	"wsapi/app/channel/widget"
	"wsapi/app/connection"
	"wsapi/app/statuswriter"
	"wsapi/app/stream"
)

// Config is what the HTTP layer needs; cli builds it from the configuration.
type Config struct {
	MaxBodyBytes       int64
	RateLimitPerMinute int
	TrustedProxies     []netip.Prefix
	Version            string
	// BodyTimeout and MinBodyRate set the read deadline of a request body: BodyTimeout plus
	// its size at MinBodyRate bytes a second; WriteTimeout then bounds the answer (guardBodies).
	// Zero: no per-body deadline.
	BodyTimeout  time.Duration
	MinBodyRate  int64
	WriteTimeout time.Duration
	// Hub feeds the SSE routes; StreamHeartbeat is how often an idle stream gets a ping.
	Hub             *stream.Hub
	StreamHeartbeat time.Duration
	// Streams is the budget every open stream holds a slot of, under its key, member and
	// client IP (streambudget.go); nil: streams are not counted.
	Streams *budget.Budget
	// StreamAuthCheck is how often open streams look for a change to keys, members and
	// roles that revokes them (streamguard.go); 0: 250 ms.
	StreamAuthCheck time.Duration
	Ops             Ops // metrics, CORS, compression, readiness, idempotency (ops.go)
	// InboxCacheChats bounds the inbox pages kept encoded, in chats (db.inbox_cache_chats).
	InboxCacheChats int
	// PublicURL is http.public_url, named in the served OpenAPI document's servers.
	PublicURL string
	// AccessLog takes the request line of every request; nil: the server's logger. `app
	// serve` gives it one that batches its writes (cli/logbuffer.go).
	AccessLog *slog.Logger
	// Widget bounds the web widget's public routes (channels.widget.*).
	Widget WidgetLimits
	// Hooks takes the messaging-app providers' updates (/hooks/{type}/{asi}); nil: 404.
	Hooks Hooks
	// Connections are the connections' rules (app/connection); nil: made over the service
	// with no OAuth provider.
	Connections *connection.Service
}

// Pinger tells whether the database answers.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Server is the API's http.Handler.
type Server struct {
	svc   *app.Service
	conns *connection.Service
	cfg   Config
	log   *slog.Logger
	// access takes the one line per request (Config.AccessLog).
	access  *slog.Logger
	db      Pinger
	limiter *ipLimiter
	handler http.Handler
	// document is the OpenAPI document as served, naming http.public_url (openapi.go).
	document []byte
	// inboxPages keeps inbox pages encoded (inboxpages.go); nil: each one is encoded.
	inboxPages *inboxPages
	// kept holds GET answers encoded under their stamps (kept.go).
	kept *keptAnswers
	// streams ends open streams whose key, member or role changed (streamguard.go).
	streams *streamGuard
	// detached counts the streams served off net/http (ssedetach.go).
	detached detachedStreams
	// widget serves the web widget's files; visitorLimits bound its visitors (widget.go).
	widget        *widget.Assets
	visitorLimits *visitorLimits
}

// New builds the handler with every route of routes.go.
func New(svc *app.Service, db Pinger, cfg Config, log *slog.Logger) *Server {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 16 << 20
	}
	if cfg.StreamHeartbeat <= 0 {
		cfg.StreamHeartbeat = 15 * time.Second
	}
	access := cfg.AccessLog
	if access == nil {
		access = log
	}
	s := &Server{svc: svc, cfg: cfg, log: log, access: access, db: db, document: servedDocument(cfg.PublicURL),
		inboxPages: newInboxPages(cfg.InboxCacheChats, cfg.Ops.Compress), kept: newKeptAnswers(cfg.Ops.KeptAnswers, cfg.Ops.Metrics, cfg.Ops.Compress)}
	if s.conns = cfg.Connections; s.conns == nil {
		s.conns = connection.New(svc, nil, nil, nil)
	}
	s.streams = newStreamGuard(svc, cfg.StreamAuthCheck, log)
	s.detached.register(cfg.Ops.Metrics)
	s.widget = widget.LoadAssets()
	s.visitorLimits = newVisitorLimits(cfg.Widget, svc.Clock(), func(rq *Request) string { return clientIP(rq.R, cfg.TrustedProxies) })
	if cfg.RateLimitPerMinute > 0 { // 0 turns rate limiting off (http.rate_limit_per_minute)
		s.limiter = newIPLimiter(cfg.RateLimitPerMinute, svc.Clock())
	}
	router := mount(s.routes(), s.serveRoute)
	router.NotFound = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeError(w, r, errNoRoute) })
	router.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// httprouter lists OPTIONS in Allow, but this API does not answer it.
		var allow []string
		for _, m := range strings.Split(w.Header().Get("Allow"), ", ") {
			if m != http.MethodOptions {
				allow = append(allow, m)
			}
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, r, errNoMethod)
	})
	router.HandleOPTIONS = false
	s.handler = s.wrap(router)
	return s
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Request is what a handler sees: the exchange, the path parameters and, on organization
// routes, the caller acting on its resolved organization.
type Request struct {
	W      http.ResponseWriter
	R      *http.Request
	Caller app.Caller
	params map[string]string
	server *Server
	// problems are what the handler found wrong in the query parameters it reads itself
	// (page, take, flags). They ride in the context to the service, which adds its own
	// fields' problems, so that one 400 names them all (see app/inputcheck.go).
	problems app.Problems
	// body is the request body when it was read before the handler (to hash an
	// Idempotency-Key): Decode takes it from here instead of copying it again.
	body []byte
	// limit is the route's bound on the body (route.limit, or http.max_body_bytes).
	limit int64
}

// Param is a path parameter by the name the route table gives it.
func (rq *Request) Param(name string) string { return rq.params[name] }

// Ctx is the request's context.
func (rq *Request) Ctx() context.Context { return rq.R.Context() }

// Org is the organization the request acts on.
func (rq *Request) Org() string { return rq.Caller.OrgID }

// Decode reads the JSON body into v.
func (rq *Request) Decode(v any) error {
	if !jsonMediaType(rq.R.Header.Get("Content-Type"), rq.R.ContentLength != 0) {
		return errMediaType
	}
	if rq.body != nil {
		return decodeBody(rq.body, v)
	}
	return decodeJSON(rq.W, rq.R, rq.limit, v)
}

// bodyLimit is the most a route's body may hold: its own bound when it has one below
// http.max_body_bytes.
func (s *Server) bodyLimit(rt *route) int64 {
	if rt.limit > 0 && rt.limit < s.cfg.MaxBodyBytes {
		return rt.limit
	}
	return s.cfg.MaxBodyBytes
}

// JSON answers v with a status.
func (rq *Request) JSON(status int, v any) error {
	writeJSON(rq.W, status, v)
	return nil
}

// Page reads page and take. Their problems are recorded (invalid, below) rather than
// returned, so the service still validates its own fields; the error is always nil.
func (rq *Request) Page() (app.Page, error) {
	p, problems := pageOf(rq.R)
	for f, why := range problems {
		rq.invalid(f, why)
	}
	return p, nil
}

// invalid records a problem of a query parameter; the request then fails with a 400 that
// names it beside the service's own problems, and the service reaches no data.
func (rq *Request) invalid(field, why string) { rq.problems.Add(field, why) }

// serveRoute runs the per-route steps: authenticate, resolve the organization, check the
// permission, then the handler; any error is written in one place.
func (s *Server) serveRoute(rt *route, w http.ResponseWriter, r *http.Request, params map[string]string) {
	rq := &Request{W: w, R: r, params: params, server: s, problems: app.Problems{}, limit: s.bodyLimit(rt)}
	setRoute(r, rt.path)
	if err := s.authorize(rt, rq); err != nil {
		writeError(w, r, err)
		return
	}
	ctx := app.WithInputProblems(r.Context(), rq.problems)
	if _, scoped := params["org"]; scoped && !rt.public {
		// What this request writes is its organization's (app.WithWriteScope): the answers
		// kept for other organizations outlive its commit.
		ctx = app.WithWriteScope(ctx, rq.Caller.OrgID)
	}
	rq.R = r.WithContext(ctx)
	s.runHandler(rt, rq)
}

func (s *Server) authorize(rt *route, rq *Request) error {
	if rt.public {
		return nil
	}
	token, ok := bearerToken(rq.R.Header.Get("Authorization"))
	if !ok {
		return errUnauthorized
	}
	p, err := s.svc.Authenticate(rq.Ctx(), token)
	if err != nil {
		return err
	}
	rq.Caller.Principal = p
	if org, ok := rq.params["org"]; ok {
		if rq.Caller.OrgID, err = s.svc.ResolveOrg(rq.Ctx(), p, org); err != nil {
			return err
		}
		setOrg(rq.R, rq.Caller.OrgID)
	} else {
		rq.Caller.OrgID = p.Key.OrgID
	}
	if rt.perm != "" && !p.Perms.Has(rt.perm) {
		return app.Forbidden(rt.perm)
	}
	return nil
}

// bearerToken reads "Bearer <token>"; the scheme name is case-insensitive (RFC 7235).
func bearerToken(h string) (string, bool) {
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// requestInfo carries what the request log reports and the handlers fill in, and the
// request's id and the server's logger (logFrom): one context value per request.
type requestInfo struct {
	route string
	org   string
	id    string
	log   *slog.Logger
}

type infoKey struct{}

func setRoute(r *http.Request, route string) {
	if ri, ok := r.Context().Value(infoKey{}).(*requestInfo); ok {
		ri.route = route
	}
}

func routeOf(r *http.Request) string {
	ri, _ := r.Context().Value(infoKey{}).(*requestInfo)
	return ri.routeName()
}

// routeName is the matched route pattern, or "(unmatched)".
func (ri *requestInfo) routeName() string {
	if ri == nil || ri.route == "" {
		return "(unmatched)"
	}
	return ri.route
}

func setOrg(r *http.Request, org string) {
	if ri, ok := r.Context().Value(infoKey{}).(*requestInfo); ok {
		ri.org = org
	}
}

// statusRecorder is the shared recorder with the API's Flush (compress.go).
type statusRecorder struct{ statuswriter.Recorder }

// logRequests logs method, route pattern, status, duration and organization; never the
// Authorization header or the query string (it may carry unsubscribe tokens).
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &requestInfo{id: newRequestID(w, r), log: s.log}
		rec := &statusRecorder{statuswriter.Recorder{ResponseWriter: w}}
		ctx := context.WithValue(r.Context(), infoKey{}, ri)
		next.ServeHTTP(rec, r.WithContext(ctx))
		if !s.access.Enabled(ctx, slog.LevelInfo) {
			return
		}
		s.access.LogAttrs(ctx, slog.LevelInfo, "request", slog.String("request_id", ri.id),
			slog.String("method", r.Method), slog.String("route", ri.routeName()), slog.Int("status", rec.Status),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000), slog.String("org", ri.org),
			slog.String("client_ip", clientIP(r, s.cfg.TrustedProxies)))
	})
}

// rateLimit spends a token per request and sets the RateLimit headers on every response.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	if s.limiter == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok, remaining, reset, retry := s.limiter.take(clientIP(r, s.cfg.TrustedProxies))
		h := w.Header()
		h.Set("RateLimit-Limit", itoa(s.cfg.RateLimitPerMinute))
		h.Set("RateLimit-Remaining", itoa(remaining))
		h.Set("RateLimit-Reset", ceilSeconds(reset))
		if !ok {
			s.countRateLimited()
			h.Set("Retry-After", ceilSeconds(retry))
			writeError(w, r, &app.Error{Code: codeRateLimited, Message: "too many requests; retry after " + ceilSeconds(retry) + " s"})
			return
		}
		next.ServeHTTP(w, r)
	})
}
