package api

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"strconv"

	"wsapi/app"
)

func (s *Server) createKnowledge(rq *Request) error {
	mt, _, _ := mime.ParseMediaType(rq.R.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		return s.uploadKnowledge(rq)
	}
	return withBody(rq, func(in app.KnowledgeInput) error {
		return rq.Created(s.svc.CreateKnowledge(rq.Ctx(), rq.Org(), rq.Param("id"), in))
	})
}

// uploadKnowledge takes a FILE as multipart: field "file", optional field "title".
func (s *Server) uploadKnowledge(rq *Request) error {
	rq.R.Body = http.MaxBytesReader(rq.W, rq.R.Body, s.cfg.MaxBodyBytes)
	if err := rq.R.ParseMultipartForm(app.MaxKnowledgeFile + 1<<20); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return errTooLarge
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return errBodyTimeout
		}
		return app.Invalid("file", "must be a multipart/form-data upload with a file field")
	}
	defer rq.R.MultipartForm.RemoveAll()
	f, hdr, err := rq.R.FormFile("file")
	if err != nil {
		return app.Invalid("file", "is required")
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, app.MaxKnowledgeFile+1))
	if err != nil {
		return app.Invalid("file", "could not be read")
	}
	return rq.Created(s.svc.CreateKnowledgeFile(rq.Ctx(), rq.Org(), rq.Param("id"), rq.R.FormValue("title"), hdr.Filename, data))
}

func (s *Server) listKnowledge(rq *Request) error {
	return list(rq, func(pg app.Page) (app.List[app.KnowledgeContent], error) {
		q := rq.R.URL.Query()
		f := app.KnowledgeFilter{Search: q.Get("search"), Type: q.Get("type"), Status: q.Get("status")}
		return s.svc.ListKnowledge(rq.Ctx(), rq.Org(), rq.Param("id"), f, q.Get("next"), pg)
	})
}

func (s *Server) getKnowledge(rq *Request) error {
	return rq.OK(s.svc.GetKnowledge(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("content_id")))
}

func (s *Server) deleteKnowledge(rq *Request) error {
	return rq.NoContent(s.svc.DeleteKnowledge(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("content_id")))
}

func (s *Server) retryKnowledge(rq *Request) error {
	return rq.Accepted(s.svc.RetryKnowledge(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("content_id")))
}

func (s *Server) searchKnowledge(rq *Request) error {
	q := rq.R.URL.Query()
	limit := 10
	if v := q.Get("take"); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 1 || n > app.MaxTake {
			rq.invalid("take", "must be a whole number from 1 to 100")
		} else {
			limit = n
		}
	}
	return rq.OK(s.svc.SearchKnowledge(rq.Ctx(), rq.Org(), rq.Param("id"), q.Get("search"), limit))
}
