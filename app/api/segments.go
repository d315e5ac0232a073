package api

import (
	"net/http"

	"wsapi/app"
)

func (s *Server) listSegments(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := s.svc.ListSegments(rq.Ctx(), rq.Org(), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) createSegment(rq *Request) error {
	var in app.SegmentInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	seg, err := s.svc.CreateSegment(rq.Ctx(), rq.Org(), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, seg)
}

func (s *Server) getSegment(rq *Request) error {
	seg, err := s.svc.GetSegment(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, seg)
}

func (s *Server) patchSegment(rq *Request) error {
	var in app.SegmentInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	seg, err := s.svc.UpdateSegment(rq.Ctx(), rq.Org(), rq.Param("id"), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, seg)
}

func (s *Server) deleteSegment(rq *Request) error {
	if err := s.svc.DeleteSegment(rq.Ctx(), rq.Org(), rq.Param("id")); err != nil {
		return err
	}
	return rq.NoContent()
}

func (s *Server) addSegmentContacts(rq *Request) error {
	var in struct {
		ContactIDs []string `json:"contact_ids"`
	}
	if err := rq.Decode(&in); err != nil {
		return err
	}
	seg, err := s.svc.AddSegmentContacts(rq.Ctx(), rq.Org(), rq.Param("id"), in.ContactIDs)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, seg)
}

func (s *Server) removeSegmentContact(rq *Request) error {
	if err := s.svc.RemoveSegmentContact(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("contact_id")); err != nil {
		return err
	}
	return rq.NoContent()
}

func (s *Server) listNotes(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := s.svc.ListNotes(rq.Ctx(), rq.Org(), rq.Param("id"), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) createNote(rq *Request) error {
	var in app.NoteInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	n, err := s.svc.CreateNote(rq.Ctx(), rq.Caller, rq.Param("id"), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, n)
}

func (s *Server) deleteNote(rq *Request) error {
	if err := s.svc.DeleteNote(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("note_id")); err != nil {
		return err
	}
	return rq.NoContent()
}

func (s *Server) listMemories(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := s.svc.ListMemories(rq.Ctx(), rq.Org(), rq.Param("id"), rq.R.URL.Query().Get("next"), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) createMemory(rq *Request) error {
	var in app.MemoryInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	m, err := s.svc.CreateMemory(rq.Ctx(), rq.Caller, rq.Param("id"), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, m)
}

func (s *Server) deleteMemory(rq *Request) error {
	if err := s.svc.DeleteMemory(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("memory_id")); err != nil {
		return err
	}
	return rq.NoContent()
}
