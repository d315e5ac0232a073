package api

import (
	"net/http"

	"wsapi/app"
)

func (s *Server) createConnection(rq *Request) error {
	var in app.ConnectionInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	c, err := s.svc.CreateConnection(rq.Ctx(), rq.Org(), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, c)
}

func (s *Server) listConnections(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := s.svc.ListConnections(rq.Ctx(), rq.Org(), rq.R.URL.Query().Get("type"), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) getConnection(rq *Request) error {
	c, err := s.svc.GetConnection(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, c)
}

func (s *Server) deleteConnection(rq *Request) error {
	if err := s.svc.DeleteConnection(rq.Ctx(), rq.Org(), rq.Param("id")); err != nil {
		return err
	}
	return rq.NoContent()
}

func (s *Server) authorizeOAuth(rq *Request) error {
	var in app.OAuthAuthorizeInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	a, err := s.svc.AuthorizeOAuth(rq.Ctx(), rq.Caller, in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, a)
}

func (s *Server) validateOAuth(rq *Request) error {
	var in app.OAuthValidateInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	res, err := s.svc.ValidateOAuth(rq.Ctx(), rq.Caller, in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, res)
}

func (s *Server) actionFields(rq *Request) error {
	var in app.FieldsInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	res, err := s.svc.ResolveActionFields(rq.Ctx(), rq.Caller, in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, res)
}
