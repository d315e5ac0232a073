package api

import (
	"net/http"

	"wsapi/app"
)

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

func (s *Server) listDeliveries(rq *Request) error {
	return list(rq, func(pg app.Page) (app.List[app.Delivery], error) {
		return s.svc.ListDeliveries(rq.Ctx(), rq.Org(), rq.Param("id"), rq.R.URL.Query().Get("status"), pg)
	})
}

func (s *Server) replayDelivery(rq *Request) error {
	return rq.Accepted(s.svc.ReplayDelivery(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("delivery_id")))
}
