package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"wsapi/app"
	"wsapi/app/signin"
	"wsapi/app/statuswriter"
	"wsapi/app/stream"
)

// Config is what the web app needs; cli builds it.
type Config struct {
	Service *app.Service
	SignIn  *signin.Service
	Hub     *stream.Hub
	// PublicURL is http.public_url: the origin unsafe requests must come from, and whether
	// cookies are Secure with the __Host- prefix (https).
	PublicURL string
	// TLS says the server itself serves HTTPS (cookies are Secure then too).
	TLS bool
	// TrustedProxy tells the client IP of a request (the API's rule for X-Forwarded-For).
	ClientIP func(*http.Request) string
	// Heartbeat is how often an idle live stream gets a comment and its session is checked
	// again (default 15 s).
	Heartbeat time.Duration
	Log       *slog.Logger
	// AccessLog takes the line of every request (nil: Log), as the API's does.
	AccessLog *slog.Logger
	// Models are the model ids and provider prefixes ("name:") the assistant form offers,
	// besides auto:auto and builtin:retrieval (from models.* of the config).
	Models []string
	// Mailer and MailFrom (email.smtp_url, email.from) mail members their invites and
	// new-password links; either nil: the links are only shown.
	Mailer   app.Mailer
	MailFrom *mail.Address
}

// Server is the web app's http.Handler, mounted at /app/.
type Server struct {
	cfg    Config
	svc    *app.Service
	auth   *signin.Service
	log    *slog.Logger
	router *httprouter.Router
	secure bool
	origin string // the public URL's origin
	cookie string // the session cookie's name
	assets *assets
	pages  *pages
}

// New builds the web app.
func New(cfg Config) (*Server, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.AccessLog == nil {
		cfg.AccessLog = cfg.Log
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = 15 * time.Second
	}
	if cfg.ClientIP == nil {
		cfg.ClientIP = func(r *http.Request) string { return hostOnly(r.RemoteAddr) }
	}
	s := &Server{cfg: cfg, svc: cfg.Service, auth: cfg.SignIn, log: cfg.Log}
	s.secure = cfg.TLS || strings.HasPrefix(cfg.PublicURL, "https://")
	if u, err := url.Parse(cfg.PublicURL); err == nil && u.Host != "" {
		s.origin = u.Scheme + "://" + u.Host
	}
	s.cookie = "session"
	if s.secure {
		s.cookie = "__Host-session" // Secure, Path=/, no Domain: no other host can set it
	}
	var err error
	if s.assets, err = loadAssets(); err != nil {
		return nil, err
	}
	if s.pages, err = loadPages(s.assets, cfg.Service.Clock()); err != nil {
		return nil, err
	}
	s.router = s.mount()
	return s, nil
}

// ServeHTTP serves /app/ with the security headers of every answer, and logs one line per
// request: method, path (never the query, which may hold a set-up token), status, time.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statuswriter.Recorder{ResponseWriter: w}
	defer func() {
		s.cfg.AccessLog.LogAttrs(r.Context(), slog.LevelInfo, "web request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", rec.Status), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("client_ip", s.cfg.ClientIP(r)))
	}()
	s.serve(rec, r)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("web: panic", "path", r.URL.Path, "panic", v)
			http.Error(w, "Something went wrong on the server. Try again; if it keeps failing, tell your admin.", http.StatusInternalServerError)
		}
	}()
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	s.router.ServeHTTP(w, r)
}

// csp allows this origin's scripts, styles, images and connections only: no inline script
// or style (htmx's indicator styles are turned off in the page's htmx-config), no eval, no
// frame of these pages anywhere. Frames of this origin only: the widget's live preview.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

func hostOnly(addr string) string {
	if i := strings.LastIndexByte(addr, ':'); i > 0 && !strings.HasSuffix(addr, "]") {
		return strings.Trim(addr[:i], "[]")
	}
	return addr
}

// Request is what a handler sees.
type Request struct {
	W       http.ResponseWriter
	R       *http.Request
	Params  httprouter.Params
	Session signin.Session // zero on public routes
	server  *Server
}

// Ctx is the request's context.
func (rq *Request) Ctx() context.Context { return rq.R.Context() }

// Caller is the signed-in member acting on its organization.
func (rq *Request) Caller() app.Caller {
	return app.Caller{Principal: rq.Session.Principal, OrgID: rq.Session.OrgID}
}

// Org is the member's organization.
func (rq *Request) Org() string { return rq.Session.OrgID }

// Can tells whether the member's role holds a permission.
func (rq *Request) Can(p app.Permission) bool { return rq.Session.Principal.Perms.Has(p) }

// HTMX tells a request made by htmx (a fragment is answered) from a page load.
func (rq *Request) HTMX() bool { return rq.R.Header.Get("HX-Request") == "true" }

// CSRF is the session's CSRF token, put in every page.
func (rq *Request) CSRF() string { return csrfToken(rq.server.sessionToken(rq.R)) }
