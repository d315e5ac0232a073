package api

import "wsapi/app"

func (s *Server) listConnections(rq *Request) error {
	return list(rq, func(pg app.Page) (app.List[app.Connection], error) {
		return s.svc.ListConnections(rq.Ctx(), rq.Org(), rq.R.URL.Query().Get("type"), pg)
	})
}

func (s *Server) authorizeOAuth(rq *Request) error {
	return withBody(rq, func(in app.OAuthAuthorizeInput) error {
		return rq.OK(s.svc.AuthorizeOAuth(rq.Ctx(), rq.Caller, in))
	})
}

func (s *Server) validateOAuth(rq *Request) error {
	return withBody(rq, func(in app.OAuthValidateInput) error {
		return rq.OK(s.svc.ValidateOAuth(rq.Ctx(), rq.Caller, in))
	})
}

func (s *Server) actionFields(rq *Request) error {
	return withBody(rq, func(in app.FieldsInput) error {
		return rq.OK(s.svc.ResolveActionFields(rq.Ctx(), rq.Caller, in))
	})
}
