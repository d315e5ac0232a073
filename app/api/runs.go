package api

import (
	"net/http"

	"wsapi/app"
)

// cancelRun stops the chat's run in flight: 200 with its final message (CANCELED, the
// partial text kept), 200 with null when only a run waiting out its debounce was dropped,
// 409 when there was nothing to cancel.
func (s *Server) cancelRun(rq *Request) error {
	m, err := s.svc.CancelRun(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, m)
}

// usage answers tokens and cost by day and model.
func (s *Server) usage(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	q := rq.R.URL.Query()
	l, err := s.svc.UsageReport(rq.Ctx(), rq.Org(), app.UsageQuery{From: q.Get("from"), To: q.Get("to"),
		AssistantID: q.Get("assistant_id")}, pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}
