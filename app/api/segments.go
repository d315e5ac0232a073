package api

import "wsapi/app"

// segmentContactsInput is the body of POST .../segments/{id}/contacts.
type segmentContactsInput struct {
	ContactIDs []string `json:"contact_ids"`
}

func (s *Server) addSegmentContacts(rq *Request) error {
	return withBody(rq, func(in segmentContactsInput) error {
		return rq.OK(s.svc.AddSegmentContacts(rq.Ctx(), rq.Org(), rq.Param("id"), in.ContactIDs))
	})
}

func (s *Server) removeSegmentContact(rq *Request) error {
	return rq.NoContent(s.svc.RemoveSegmentContact(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("contact_id")))
}

func (s *Server) listNotes(rq *Request) error {
	return list(rq, func(pg app.Page) (app.List[app.Note], error) {
		return s.svc.ListNotes(rq.Ctx(), rq.Org(), rq.Param("id"), pg)
	})
}

func (s *Server) createNote(rq *Request) error {
	return withBody(rq, func(in app.NoteInput) error {
		return rq.Created(s.svc.CreateNote(rq.Ctx(), rq.Caller, rq.Param("id"), in))
	})
}

func (s *Server) deleteNote(rq *Request) error {
	return rq.NoContent(s.svc.DeleteNote(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("note_id")))
}

func (s *Server) listMemories(rq *Request) error {
	return list(rq, func(pg app.Page) (app.List[app.Memory], error) {
		return s.svc.ListMemories(rq.Ctx(), rq.Org(), rq.Param("id"), rq.R.URL.Query().Get("next"), pg)
	})
}

func (s *Server) createMemory(rq *Request) error {
	return withBody(rq, func(in app.MemoryInput) error {
		return rq.Created(s.svc.CreateMemory(rq.Ctx(), rq.Caller, rq.Param("id"), in))
	})
}

func (s *Server) deleteMemory(rq *Request) error {
	return rq.NoContent(s.svc.DeleteMemory(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("memory_id")))
}
