package api

import (
	"net/http"

	"wsapi/app"
)

func (s *Server) listAssistants(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := s.svc.ListAssistants(rq.Ctx(), rq.Org(), rq.R.URL.Query().Get("search"), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) createAssistant(rq *Request) error {
	var in app.AssistantInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	a, err := s.svc.CreateAssistant(rq.Ctx(), rq.Org(), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, a)
}

func (s *Server) getAssistant(rq *Request) error {
	a, err := s.svc.GetAssistant(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, a)
}

func (s *Server) patchAssistant(rq *Request) error {
	var in app.AssistantInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	a, err := s.svc.UpdateAssistant(rq.Ctx(), rq.Org(), rq.Param("id"), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, a)
}

func (s *Server) deleteAssistant(rq *Request) error {
	if err := s.svc.DeleteAssistant(rq.Ctx(), rq.Org(), rq.Param("id")); err != nil {
		return err
	}
	return rq.NoContent()
}
