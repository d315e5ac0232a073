package api

import (
	"net/http"

	"wsapi/app"
)

func (s *Server) listWebhooks(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := s.svc.ListWebhooks(rq.Ctx(), rq.Org(), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) createWebhook(rq *Request) error {
	var in app.WebhookInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	w, err := s.svc.CreateWebhook(rq.Ctx(), rq.Org(), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, w)
}

// listEventTypes answers the webhook event types; with all=true also the types only the
// event stream carries (webhook false), so clients of the stream can list its types.
func (s *Server) listEventTypes(rq *Request) error {
	switch rq.R.URL.Query().Get("all") {
	case "", "false":
		return rq.JSON(http.StatusOK, app.EventTypes)
	case "true":
		return rq.JSON(http.StatusOK, app.AllEventTypes())
	}
	return app.Invalid("all", "must be true or false")
}

func (s *Server) getWebhook(rq *Request) error {
	w, err := s.svc.GetWebhook(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, w)
}

func (s *Server) patchWebhook(rq *Request) error {
	var in app.WebhookPatch
	if err := rq.Decode(&in); err != nil {
		return err
	}
	w, err := s.svc.UpdateWebhook(rq.Ctx(), rq.Org(), rq.Param("id"), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, w)
}

func (s *Server) deleteWebhook(rq *Request) error {
	if err := s.svc.DeleteWebhook(rq.Ctx(), rq.Org(), rq.Param("id")); err != nil {
		return err
	}
	return rq.NoContent()
}

func (s *Server) testWebhook(rq *Request) error {
	a, err := s.svc.TestWebhook(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, a)
}

func (s *Server) rotateWebhook(rq *Request) error {
	w, err := s.svc.RotateWebhookSecret(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, w)
}

func (s *Server) listDeliveries(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := s.svc.ListDeliveries(rq.Ctx(), rq.Org(), rq.Param("id"), rq.R.URL.Query().Get("status"), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) replayDelivery(rq *Request) error {
	d, err := s.svc.ReplayDelivery(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("delivery_id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusAccepted, d)
}
