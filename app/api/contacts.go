package api

import (
	"net/http"
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
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	q := rq.R.URL.Query()
	f := app.ContactFilter{Search: q.Get("search"), SegmentID: q.Get("segment_id")}
	f.Blocked, f.Unsubscribed = boolQuery(rq, "blocked"), boolQuery(rq, "unsubscribed")
	l, err := s.svc.ListContacts(rq.Ctx(), rq.Org(), f, pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) createContact(rq *Request) error {
	var in app.ContactInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	c, err := s.svc.CreateContact(rq.Ctx(), rq.Org(), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, c)
}

func (s *Server) getContact(rq *Request) error {
	c, err := s.svc.GetContact(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, c)
}

func (s *Server) patchContact(rq *Request) error {
	var in app.ContactPatch
	if err := rq.Decode(&in); err != nil {
		return err
	}
	c, err := s.svc.UpdateContact(rq.Ctx(), rq.Org(), rq.Param("id"), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, c)
}

func (s *Server) deleteContact(rq *Request) error {
	if err := s.svc.DeleteContact(rq.Ctx(), rq.Org(), rq.Param("id")); err != nil {
		return err
	}
	return rq.NoContent()
}

func (s *Server) addChannel(rq *Request) error {
	var in app.ChannelInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	ch, err := s.svc.AddChannel(rq.Ctx(), rq.Org(), rq.Param("id"), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, ch)
}

func (s *Server) mergeContacts(rq *Request) error {
	var in app.MergeInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	c, err := s.svc.MergeContacts(rq.Ctx(), rq.Org(), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, c)
}

func (s *Server) mergeContactsDry(rq *Request) error {
	var in app.MergeInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	p, err := s.svc.PreviewMerge(rq.Ctx(), rq.Org(), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, p)
}

func (s *Server) bulkContactsDry(rq *Request) error {
	var in app.BulkInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	res, err := s.svc.BulkDryRun(rq.Ctx(), rq.Org(), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, res)
}

func (s *Server) bulkContacts(rq *Request) error {
	var in app.BulkInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	res, err := s.svc.BulkImport(rq.Ctx(), rq.Org(), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, res)
}
