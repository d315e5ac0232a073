package api

import (
	"net/http"
	"strconv"
	"strings"

	"wsapi/app"
)

// visitorFileRead serves a sound of one of the visitor's chats (a recording, a spoken answer)
// to the widget, which plays it from a blob: URL. Another session's or organization's file
// is a plain 404.
func (s *Server) visitorFileRead(rq *Request) error {
	v, err := s.visitor(rq, rq.R.Header.Get("X-Session-Token"))
	if err != nil {
		return err
	}
	c, err := s.visitorChat(rq, v)
	if err != nil {
		return err
	}
	f, err := s.svc.GetFile(rq.Ctx(), v.Session.OrgID, c.ID, rq.Param("file_id"))
	if err != nil {
		return err
	}
	if !strings.HasPrefix(f.FileMimetype, "audio/") { // the widget plays sounds; other files stay in the inbox
		return app.NotFound("file")
	}
	h := rq.W.Header()
	h.Set("Content-Type", f.FileMimetype)
	h.Set("Content-Length", strconv.Itoa(len(f.Data)))
	h.Set("Content-Disposition", "attachment")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, max-age=3600")
	rq.W.WriteHeader(http.StatusOK)
	_, _ = rq.W.Write(f.Data)
	return nil
}
