package web

import (
	"net/http"

	"github.com/julienschmidt/httprouter"

	"wsapi/app"
)

// route is one line of the web app: method, path, the permission it needs (checked before
// the handler, as in the API's route table), the handler. public routes need no session.
type route struct {
	method string
	path   string
	perm   app.Permission
	public bool
	handle func(*Request) error
}

// routes is the whole web app on one screen.
func (s *Server) routes() []route {
	rd, wr := app.Read, app.Write
	get, post := http.MethodGet, http.MethodPost
	return append([]route{
		{method: get, path: "/app/static/:name", public: true, handle: s.static},
		{method: get, path: "/app/signin", public: true, handle: s.signinPage},
		{method: post, path: "/app/signin", public: true, handle: s.signinSubmit},
		{method: get, path: "/app/setup", public: true, handle: s.setupPage},
		{method: post, path: "/app/setup", public: true, handle: s.setupSubmit},
		{method: post, path: "/app/signout", handle: s.signout},
		{method: post, path: "/app/signout-everywhere", handle: s.signoutEverywhere},

		{method: get, path: "/app/", perm: rd("inbox"), handle: s.inbox},
		{method: get, path: "/app/events", perm: rd("inbox"), handle: s.events},
		{method: get, path: "/app/chats/:id", perm: rd("inbox"), handle: s.chat},
		{method: get, path: "/app/chats/:id/header", perm: rd("inbox"), handle: s.chatHeader},
		{method: get, path: "/app/chats/:id/messages", perm: rd("inbox"), handle: s.olderMessages},
		{method: get, path: "/app/chats/:id/messages/:mid", perm: rd("inbox"), handle: s.oneMessage},
		{method: get, path: "/app/chats/:id/contact", perm: rd("contacts"), handle: s.contactPane},
		{method: post, path: "/app/chats/:id/reply", perm: wr("inbox"), handle: s.reply},
		{method: post, path: "/app/chats/:id/note", perm: wr("contacts"), handle: s.note},
		{method: post, path: "/app/chats/:id/read", perm: wr("inbox"), handle: s.markRead},
		{method: post, path: "/app/chats/:id/takeover", perm: wr("inbox"), handle: s.takeOver},
		{method: post, path: "/app/chats/:id/handback", perm: wr("inbox"), handle: s.handBack},
		{method: post, path: "/app/chats/:id/assign", perm: wr("inbox"), handle: s.assign},
		{method: post, path: "/app/chats/:id/snooze", perm: wr("inbox"), handle: s.setState("SNOOZED")},
		{method: post, path: "/app/chats/:id/resolve", perm: wr("inbox"), handle: s.setState("CLOSED")},
		{method: post, path: "/app/chats/:id/reopen", perm: wr("inbox"), handle: s.setState("OPEN")},

		{method: get, path: "/app/members", perm: rd("members"), handle: s.members},
		{method: post, path: "/app/members", perm: wr("members"), handle: s.invite},
		{method: post, path: "/app/members/:id/link", perm: wr("members"), handle: s.resetLink},
	}, s.adminRoutes()...)
}

// mount registers every route behind the per-route steps.
func (s *Server) mount() *httprouter.Router {
	router := httprouter.New()
	router.RedirectTrailingSlash = false
	router.HandleMethodNotAllowed = false
	for _, rt := range append(s.routes(), s.assistantRoutes()...) { // settings_assistants.go
		router.Handle(rt.method, rt.path, func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
			s.serveRoute(rt, w, r, ps)
		})
	}
	router.GET("/app", func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		http.Redirect(w, r, "/app/", http.StatusFound)
	})
	router.NotFound = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(&Request{W: w, R: r, server: s}, app.NotFound("page"))
	})
	return router
}

// serveRoute checks, in order: the Origin and CSRF token of an unsafe request, the session,
// the route's permission; then runs the handler, and writes any error in one place.
func (s *Server) serveRoute(rt route, w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	rq := &Request{W: w, R: r, Params: ps, server: s}
	if r.Method != http.MethodGet && r.Method != http.MethodHead && !s.sameOrigin(r) {
		s.writeError(rq, errCrossOrigin)
		return
	}
	if !rt.public {
		ses, err := s.auth.Authenticate(r.Context(), s.sessionToken(r))
		if err != nil {
			s.notSignedIn(rq, err)
			return
		}
		rq.Session = ses
		s.actAs(rq)
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !s.validCSRF(r) {
			s.writeError(rq, errCSRF)
			return
		}
		if rt.perm != "" && !rq.Can(rt.perm) {
			s.writeError(rq, app.Forbidden(rt.perm))
			return
		}
	}
	if err := rt.handle(rq); err != nil {
		s.writeError(rq, err)
	}
}
