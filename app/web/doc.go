// Package web is the members' web app at /app/: server-rendered html/template pages wired
// with htmx (pinned, vendored and embedded, static/htmx.min.js) and a little plain
// JavaScript (static/app.js) for the live stream. Assets are embedded with go:embed and
// served under content-hashed names; every page carries a strict Content-Security-Policy
// (no inline script or style, nothing from another origin).
//
// Members sign in with email and password (app/signin); a session is a revocable row
// whose token the browser keeps in an HttpOnly, SameSite=Lax cookie. Every unsafe request
// needs the session's CSRF token and an Origin of this server. The handlers are as thin as
// the API's: they call the same app.Service methods with the member as the caller, so the
// rules (and the permissions, checked per route in routes.go and again by the service
// where it checks the caller) are the API's, never a second copy. Live updates come over
// one SSE connection per tab from the same hub as the API's streams (app/stream).
package web
