package api

import (
	"strconv"

	"wsapi/app"
	"wsapi/app/metadata"
)

func (s *Server) listMessages(rq *Request) error {
	return list(rq, func(pg app.Page) (app.List[app.Message], error) {
		return s.svc.ListMessages(rq.Ctx(), rq.Org(), rq.Param("id"), rq.R.URL.Query().Get("next"), pg)
	})
}

func (s *Server) createMessage(rq *Request) error {
	return withBody(rq, func(in app.MessageInput) error {
		return rq.Created(s.svc.AddMessage(rq.Ctx(), rq.Caller, rq.Param("id"), in))
	})
}

// reactionInput is the body of PUT .../reaction.
type reactionInput struct {
	Emoji string `json:"emoji"`
}

func (s *Server) setReaction(rq *Request) error {
	return withBody(rq, func(in reactionInput) error {
		return rq.OK(s.svc.SetReaction(rq.Ctx(), rq.Caller, rq.Param("id"), rq.Param("message_id"), in.Emoji))
	})
}

func (s *Server) deleteReaction(rq *Request) error {
	return rq.NoContent(s.svc.DeleteReaction(rq.Ctx(), rq.Caller, rq.Param("id"), rq.Param("message_id")))
}

func (s *Server) listFiles(rq *Request) error {
	return list(rq, func(pg app.Page) (app.List[app.ChatFile], error) {
		q := rq.R.URL.Query()
		return s.svc.ListFiles(rq.Ctx(), rq.Org(), rq.Param("id"), q.Get("search"), q.Get("mimetype"), pg)
	})
}

func (s *Server) getFile(rq *Request) error {
	f, err := s.svc.GetFile(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("file_id"))
	if err != nil {
		return err
	}
	h := rq.W.Header()
	h.Set("Content-Type", f.FileMimetype)
	h.Set("Content-Length", strconv.Itoa(len(f.Data)))
	h.Set("Content-Disposition", `attachment; filename="`+f.FileFilename+`"`)
	h.Set("X-Content-Type-Options", "nosniff")
	_, err = rq.W.Write(f.Data)
	return err
}

func (s *Server) inbox(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	q := rq.R.URL.Query()
	f, err := app.ParseInboxFilter(q.Get, rq.Caller.Member.ID)
	if err != nil {
		return err
	}
	l, err := s.svc.Inbox(rq.Ctx(), rq.Org(), f, q.Get("next"), pg)
	if err != nil {
		return err
	}
	s.inboxPages.write(rq.W, rq.R, pg, l)
	return nil
}

func (s *Server) metadata(rq *Request) error {
	return rq.OK(metadata.ForService(s.svc, rq.R.URL.Query().Get("lang")))
}

func (s *Server) patchMessage(rq *Request) error {
	return withBody(rq, func(in app.MessagePatch) error {
		return rq.OK(s.svc.UpdateMessage(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("message_id"), in))
	})
}
