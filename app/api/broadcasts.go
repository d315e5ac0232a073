package api

import (
	"net/http"

	"wsapi/app"
)

func (s *Server) createBroadcast(rq *Request) error {
	var in app.BroadcastInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	b, err := s.svc.CreateBroadcast(rq.Ctx(), rq.Org(), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, b)
}

func (s *Server) listBroadcasts(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := s.svc.ListBroadcasts(rq.Ctx(), rq.Org(), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) getBroadcast(rq *Request) error {
	b, err := s.svc.GetBroadcast(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, b)
}

func (s *Server) listRecipients(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	q := rq.R.URL.Query()
	f, err := app.ParseRecipientFilter(q.Get)
	if err != nil {
		return err
	}
	l, err := s.svc.ListRecipients(rq.Ctx(), rq.Org(), f, q.Get("next"), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) recipientEvent(rq *Request) error {
	var in app.RecipientEventInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	r, err := s.svc.RecordRecipientEvent(rq.Ctx(), rq.Org(), rq.Param("id"), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, r)
}

func (s *Server) listSuppressions(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := s.svc.ListSuppressions(rq.Ctx(), rq.Org(), rq.R.URL.Query().Get("search"), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) addSuppression(rq *Request) error {
	var in app.SuppressionInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	sup, err := s.svc.AddSuppression(rq.Ctx(), rq.Org(), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, sup)
}

func (s *Server) deleteSuppression(rq *Request) error {
	if err := s.svc.DeleteSuppression(rq.Ctx(), rq.Org(), rq.Param("id")); err != nil {
		return err
	}
	return rq.NoContent()
}
