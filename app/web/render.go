package web

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"wsapi/app"
	"wsapi/app/signin"
)

// pages holds the parsed templates.
type pages struct{ t *template.Template }

// loadPages parses the templates; relative times are read on clock (tests move it).
func loadPages(a *assets, clock app.Clock) (*pages, error) {
	parsed, err := parsedPages()
	if err != nil {
		return nil, err
	}
	t, err := parsed.Clone()
	if err != nil {
		return nil, err
	}
	return &pages{t: t.Funcs(pageFuncs(a, clock))}, nil
}

// parsedPages are the templates parsed once per process (a test binary starts many
// servers); each server runs a clone bound to its own assets and clock (loadPages).
var parsedPages = sync.OnceValues(func() (*template.Template, error) {
	t, err := template.New("").Funcs(pageFuncs(nil, nil)).Funcs(settingsFuncs()).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("web: templates: %w", err)
	}
	return t, nil
})

// pageFuncs are the helpers bound to a server's assets and clock (nil only while parsing,
// which resolves names and calls nothing).
func pageFuncs(a *assets, clock app.Clock) template.FuncMap {
	return template.FuncMap{
		"asset":     func(name string) string { return a.URL(name) },
		"ago":       func(t app.Time) string { return ago(clock.Now(), t) },
		"countdown": func(t app.Time) string { return countdown(clock.Now(), t) },
		"initial":   initial,
		"lower":     strings.ToLower,
		"can":       func(ps app.PermissionSet, p string) bool { return ps.Has(app.Permission(p)) },
	}
}

// render writes a template with a status; a page is built in full before any byte is
// sent, so a failing template answers a clean 500 rather than half a page.
func (s *Server) render(rq *Request, status int, name string, data any) error {
	var b bytes.Buffer
	if err := s.pages.t.ExecuteTemplate(&b, name, data); err != nil {
		return fmt.Errorf("web: render %s: %w", name, err)
	}
	h := rq.W.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	rq.W.WriteHeader(status)
	_, err := rq.W.Write(b.Bytes())
	return err
}

// page is what every full page's layout reads.
type page struct {
	Title  string
	CSRF   string
	Member app.Member
	Perms  app.PermissionSet
	Body   any
	OrgID  string // the organization the pages act on (a sub-organization once switched)
	Acting string // its name, when it is not the member's own
}

func (s *Server) page(rq *Request, title string, body any) page {
	return page{Title: title, CSRF: rq.CSRF(), Member: rq.Session.Principal.Member, Perms: rq.Session.Principal.Perms, Body: body, OrgID: rq.Org(), Acting: s.actingName(rq)}
}

// writeError answers a failed request: a page for a page load, a short text for htmx
// (app.js shows it in the page's alert area). Each message says what to do next; an error
// the domain does not name is a 500 whose detail only the log sees.
func (s *Server) writeError(rq *Request, err error) {
	status, msg := describe(err)
	if status == http.StatusInternalServerError {
		s.log.Error("web: request failed", "path", rq.R.URL.Path, "err", err)
	}
	var th *signin.Throttled
	if errors.As(err, &th) {
		rq.W.Header().Set("Retry-After", fmt.Sprint(int(th.RetryAfter.Seconds()+0.999)))
	}
	if rq.HTMX() || rq.R.Method != http.MethodGet {
		if rq.HTMX() {
			rq.W.Header().Set("Content-Type", "text/plain; charset=utf-8")
			rq.W.Header().Set("Cache-Control", "no-store")
			rq.W.WriteHeader(status)
			fmt.Fprint(rq.W, msg)
			return
		}
	}
	if rerr := s.render(rq, status, "error", page{Title: "Error", Body: map[string]any{"Status": status, "Message": msg}}); rerr != nil {
		http.Error(rq.W, msg, status)
	}
}

// describe maps an error to a status and a message for people.
func describe(err error) (int, string) {
	var th *signin.Throttled
	if errors.As(err, &th) {
		return http.StatusTooManyRequests, "Too many sign-in attempts. Wait " + th.RetryAfter.Round(time.Second).String() + " and try again."
	}
	e, ok := app.AsError(err)
	if !ok {
		return http.StatusInternalServerError, "Something went wrong on the server. Try again; if it keeps failing, tell your admin."
	}
	switch e.Code {
	case app.CodeInvalidArgument:
		return http.StatusBadRequest, "Please fix: " + fieldList(e)
	case app.CodeUnauthenticated:
		return http.StatusUnauthorized, e.Message
	case app.CodePermission:
		if strings.HasPrefix(e.Message, "this key lacks the permission ") {
			perm := strings.TrimPrefix(e.Message, "this key lacks the permission ")
			return http.StatusForbidden, "Your role does not allow this (it needs " + perm + "). Ask an admin of your organization to change your role."
		}
		return http.StatusForbidden, e.Message
	case app.CodeNotFound:
		return http.StatusNotFound, upperFirst(e.Message) + ". It may have been deleted; go back to the inbox and pick another."
	case app.CodeConflict:
		return http.StatusConflict, upperFirst(e.Message) + "."
	case app.CodeUnavailable:
		return http.StatusServiceUnavailable, "The server is busy. Try again in a moment."
	}
	return http.StatusInternalServerError, "Something went wrong on the server. Try again; if it keeps failing, tell your admin."
}

func fieldList(e *app.Error) string {
	if len(e.Fields) == 0 {
		return e.Message
	}
	var parts []string
	for f, why := range e.Fields {
		parts = append(parts, f+" "+why)
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ") + "."
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// notSignedIn sends a page load to the sign-in page (and back after), an htmx request
// there through HX-Redirect, and anything else a 401.
func (s *Server) notSignedIn(rq *Request, err error) {
	if !errors.Is(err, signin.ErrNoSession) {
		s.writeError(rq, err)
		return
	}
	if s.sessionToken(rq.R) != "" {
		s.clearSession(rq.W)
	}
	target := "/app/signin"
	if rq.R.Method == http.MethodGet && rq.R.URL.Path != "/app/events" {
		target += "?next=" + url.QueryEscape(rq.R.URL.RequestURI())
	}
	switch {
	case rq.HTMX():
		rq.W.Header().Set("HX-Redirect", target)
		rq.W.WriteHeader(http.StatusUnauthorized)
	case rq.R.Method == http.MethodGet && rq.R.URL.Path != "/app/events":
		http.Redirect(rq.W, rq.R, target, http.StatusSeeOther)
	default:
		http.Error(rq.W, "You are signed out. Sign in again at /app/signin.", http.StatusUnauthorized)
	}
}

// ago is a short relative time: "now", "5m", "3h", "2d", or the date.
func ago(now time.Time, t app.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t.Time)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 7*24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
	return t.Format("2 Jan")
}

// countdown is the time left until a follow-up: "in 2h 5m", or "due".
func countdown(now time.Time, t app.Time) string {
	if t.IsZero() {
		return ""
	}
	d := t.Sub(now)
	if d <= 0 {
		return "due"
	}
	if d < time.Hour {
		return fmt.Sprintf("in %dm", int(d.Minutes())+1)
	}
	if d < 48*time.Hour {
		return fmt.Sprintf("in %dh %dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("in %dd", int(d.Hours()/24))
}

func initial(s string) string {
	for _, r := range strings.TrimSpace(s) {
		return strings.ToUpper(string(r))
	}
	return "?"
}
