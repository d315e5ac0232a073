package api

import (
	"wsapi/app"
	"wsapi/app/connection"
)

func (s *Server) listConnections(rq *Request) error {
	return list(rq, func(pg app.Page) (app.List[app.Connection], error) {
		return s.conns.List(rq.Ctx(), rq.Org(), rq.R.URL.Query().Get("type"), pg)
	})
}

func (s *Server) authorizeOAuth(rq *Request) error {
	return withBody(rq, func(in connection.OAuthAuthorizeInput) error {
		return rq.OK(s.conns.AuthorizeOAuth(rq.Ctx(), rq.Caller, in))
	})
}

func (s *Server) validateOAuth(rq *Request) error {
	return withBody(rq, func(in connection.OAuthValidateInput) error {
		return rq.OK(s.conns.ValidateOAuth(rq.Ctx(), rq.Caller, in))
	})
}

func (s *Server) actionFields(rq *Request) error {
	return withBody(rq, func(in connection.FieldsInput) error {
		return rq.OK(s.conns.ResolveActionFields(rq.Ctx(), rq.Caller, in))
	})
}
