package api

import "wsapi/app"

func (s *Server) listAssistants(rq *Request) error {
	return list(rq, func(pg app.Page) (app.List[app.Assistant], error) {
		return s.svc.ListAssistants(rq.Ctx(), rq.Org(), rq.R.URL.Query().Get("search"), pg)
	})
}
