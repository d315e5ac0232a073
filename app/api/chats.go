package api

import (
	"net/http"
	"strconv"

	"wsapi/app"
)

func (s *Server) createChat(rq *Request) error {
	var in app.ChatInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	c, err := s.svc.CreateChat(rq.Ctx(), rq.Caller, in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, c)
}

func (s *Server) getChat(rq *Request) error {
	c, err := s.svc.GetChat(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, c)
}

func (s *Server) patchChat(rq *Request) error {
	var in app.ChatPatch
	if err := rq.Decode(&in); err != nil {
		return err
	}
	c, err := s.svc.UpdateChat(rq.Ctx(), rq.Org(), rq.Param("id"), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, c)
}

func (s *Server) deleteChat(rq *Request) error {
	if err := s.svc.DeleteChat(rq.Ctx(), rq.Org(), rq.Param("id")); err != nil {
		return err
	}
	return rq.NoContent()
}

func (s *Server) readChat(rq *Request) error {
	c, err := s.svc.MarkChatRead(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, c)
}

func (s *Server) listMessages(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := s.svc.ListMessages(rq.Ctx(), rq.Org(), rq.Param("id"), rq.R.URL.Query().Get("next"), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) createMessage(rq *Request) error {
	var in app.MessageInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	m, err := s.svc.AddMessage(rq.Ctx(), rq.Caller, rq.Param("id"), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, m)
}

func (s *Server) chatEvent(rq *Request) error {
	var in app.ChatEventInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	m, err := s.svc.ChatEvent(rq.Ctx(), rq.Caller, rq.Param("id"), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, m)
}

func (s *Server) setReaction(rq *Request) error {
	var in struct {
		Emoji string `json:"emoji"`
	}
	if err := rq.Decode(&in); err != nil {
		return err
	}
	m, err := s.svc.SetReaction(rq.Ctx(), rq.Caller, rq.Param("id"), rq.Param("message_id"), in.Emoji)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, m)
}

func (s *Server) deleteReaction(rq *Request) error {
	if err := s.svc.DeleteReaction(rq.Ctx(), rq.Caller, rq.Param("id"), rq.Param("message_id")); err != nil {
		return err
	}
	return rq.NoContent()
}

func (s *Server) listFiles(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	q := rq.R.URL.Query()
	l, err := s.svc.ListFiles(rq.Ctx(), rq.Org(), rq.Param("id"), q.Get("search"), q.Get("mimetype"), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
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
	s.inboxPages.write(rq.W, pg, l)
	return nil
}

func (s *Server) metadata(rq *Request) error {
	md, err := app.GetMetadata(rq.R.URL.Query().Get("lang"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, md)
}

func (s *Server) patchMessage(rq *Request) error {
	var in app.MessagePatch
	if err := rq.Decode(&in); err != nil {
		return err
	}
	m, err := s.svc.UpdateMessage(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("message_id"), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, m)
}
