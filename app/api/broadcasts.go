package api

import "wsapi/app"

func (s *Server) listRecipients(rq *Request) error {
	return list(rq, func(pg app.Page) (app.List[app.Recipient], error) {
		q := rq.R.URL.Query()
		f, err := app.ParseRecipientFilter(q.Get)
		if err != nil {
			return app.List[app.Recipient]{}, err
		}
		return s.svc.ListRecipients(rq.Ctx(), rq.Org(), f, q.Get("next"), pg)
	})
}

func (s *Server) recipientEvent(rq *Request) error {
	return withBody(rq, func(in app.RecipientEventInput) error {
		return rq.OK(s.svc.RecordRecipientEvent(rq.Ctx(), rq.Org(), rq.Param("id"), in))
	})
}

func (s *Server) listSuppressions(rq *Request) error {
	return list(rq, func(pg app.Page) (app.List[app.Suppression], error) {
		return s.svc.ListSuppressions(rq.Ctx(), rq.Org(), rq.R.URL.Query().Get("search"), pg)
	})
}
