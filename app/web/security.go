package web

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"

	"wsapi/app"
	"wsapi/app/signin"
)

var (
	errCrossOrigin = &app.Error{Code: app.CodePermission,
		Message: "This request did not come from this site's own pages (its Origin header is missing or another site's). Reload the page and try again."}
	errCSRF = &app.Error{Code: app.CodePermission,
		Message: "This form has expired (its security token does not match your session). Reload the page and try again."}
)

// sessionToken is the session cookie's value, or "".
func (s *Server) sessionToken(r *http.Request) string {
	c, err := r.Cookie(s.cookie)
	if err != nil {
		return ""
	}
	return c.Value
}

// setSession gives the browser the session's cookie: HttpOnly (no script reads it),
// SameSite=Lax (no other site's form or fetch sends it), and behind HTTPS Secure with the
// __Host- prefix.
func (s *Server) setSession(w http.ResponseWriter, ses signin.Session) {
	http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: ses.Token, Path: "/", HttpOnly: true, Secure: s.secure,
		SameSite: http.SameSiteLaxMode, MaxAge: int(signin.SessionLife.Seconds())})
}

func (s *Server) clearSession(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: "", Path: "/", HttpOnly: true, Secure: s.secure,
		SameSite: http.SameSiteLaxMode, MaxAge: -1})
}

// csrfToken is derived from the session's token (a keyed hash of it): it needs no storage,
// changes with every session, and tells nothing of the token itself.
func csrfToken(sessionToken string) string {
	if sessionToken == "" {
		return ""
	}
	h := sha256.Sum256([]byte("web csrf\x00" + sessionToken))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// validCSRF checks the X-CSRF-Token header (htmx sends it on every request) or the csrf
// form field (forms without script) against the session's, in constant time.
func (s *Server) validCSRF(r *http.Request) bool {
	want := csrfToken(s.sessionToken(r))
	got := r.Header.Get("X-CSRF-Token")
	if got == "" {
		r.Body = http.MaxBytesReader(nil, r.Body, maxFormBytes)
		got = r.PostFormValue("csrf")
	}
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// maxFormBytes bounds every form body: a reply is at most a few thousand characters.
const maxFormBytes = 64 << 10

// sameOrigin requires an unsafe request's Origin to be this server: the public URL's
// origin, or the origin the request was addressed to. Browsers send Origin on every POST;
// a request without one is refused, so a forged form from another site fails even where
// SameSite does not apply (an old browser, a sibling subdomain).
func (s *Server) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" || o == "null" {
		return false
	}
	if s.origin != "" && o == s.origin {
		return true
	}
	scheme := "http"
	if r.TLS != nil || s.secure {
		scheme = "https"
	}
	return o == scheme+"://"+r.Host
}
