package api

import "wsapi/app"

// cancelRun stops the chat's run in flight: 200 with its final message (CANCELED, the
// partial text kept), 200 with null when only a run waiting out its debounce was dropped,
// 409 when there was nothing to cancel.
func (s *Server) cancelRun(rq *Request) error {
	return rq.OK(s.svc.CancelRun(rq.Ctx(), rq.Org(), rq.Param("id")))
}

// usage answers tokens and cost by day and model.
func (s *Server) usage(rq *Request) error {
	return list(rq, func(pg app.Page) (app.List[app.UsageRow], error) {
		q := rq.R.URL.Query()
		return s.svc.UsageReport(rq.Ctx(), rq.Org(), app.UsageQuery{From: q.Get("from"), To: q.Get("to"),
			AssistantID: q.Get("assistant_id")}, pg)
	})
}
