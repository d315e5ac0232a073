package api

import (
	"strconv"

	"wsapi/app"
)

// boolQuery reads an optional true/false query parameter; a bad value is recorded as a
// problem of the request (nil here), named with every other.
func boolQuery(rq *Request, name string) *bool {
	v := rq.R.URL.Query().Get(name)
	if v == "" {
		return nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		rq.invalid(name, "must be true or false")
		return nil
	}
	return &b
}

func (s *Server) listContacts(rq *Request) error {
	q := rq.R.URL.Query()
	f := app.ContactFilter{Search: q.Get("search"), SegmentID: q.Get("segment_id")}
	f.Blocked, f.Unsubscribed = boolQuery(rq, "blocked"), boolQuery(rq, "unsubscribed")
	return stampedList(rq, s.kept,
		func(pg app.Page) (app.Stamp, bool) { return s.svc.ContactsStamp(rq.Org(), f, pg) },
		func(pg app.Page) (app.List[app.Contact], error) { return s.svc.ListContacts(rq.Ctx(), rq.Org(), f, pg) })
}

func (s *Server) addChannel(rq *Request) error {
	return withBody(rq, func(in app.ChannelInput) error {
		return rq.Created(s.svc.AddChannel(rq.Ctx(), rq.Org(), rq.Param("id"), in))
	})
}

func (s *Server) mergeContacts(rq *Request) error {
	return withBody(rq, func(in app.MergeInput) error {
		return rq.OK(s.svc.MergeContacts(rq.Ctx(), rq.Org(), in))
	})
}

func (s *Server) mergeContactsDry(rq *Request) error {
	return withBody(rq, func(in app.MergeInput) error {
		return rq.OK(s.svc.PreviewMerge(rq.Ctx(), rq.Org(), in))
	})
}

func (s *Server) bulkContactsDry(rq *Request) error {
	return withBody(rq, func(in app.BulkInput) error {
		return rq.OK(s.svc.BulkDryRun(rq.Ctx(), rq.Org(), in))
	})
}

func (s *Server) bulkContacts(rq *Request) error {
	return withBody(rq, func(in app.BulkInput) error {
		return rq.OK(s.svc.BulkImport(rq.Ctx(), rq.Org(), in))
	})
}
