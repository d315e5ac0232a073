package web

import (
	"net/http"
	"strconv"

	"wsapi/app"
)

type usageView struct {
	Org   app.Org
	Rows  []app.UsageRow
	From  string
	To    string
	Total float64
	Form  form
}

// usage is GET /app/usage?from=&to=: the organization's balance and the ledger by day and
// model, with the API's own query rules (the dates' errors beside the date fields).
func (s *Server) usage(rq *Request) error {
	q := rq.R.URL.Query()
	v := usageView{From: q.Get("from"), To: q.Get("to"), Form: form{Values: q}}
	var err error
	if v.Org, err = s.svc.GetOrg(rq.Ctx(), rq.Org()); err != nil {
		return err
	}
	l, err := s.svc.UsageReport(rq.Ctx(), rq.Org(), app.UsageQuery{From: v.From, To: v.To}, app.Page{Page: 1, Take: app.MaxTake})
	status := http.StatusOK
	if err != nil {
		if status, err = v.Form.failed(err); err != nil {
			return err
		}
	}
	v.Rows = l.Items
	for _, r := range v.Rows {
		v.Total += r.Cost
	}
	return s.render(rq, status, "usage", s.page(rq, "Usage", v))
}

// trimFloat writes an amount without trailing zeros.
func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
