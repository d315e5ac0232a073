package web

import (
	"net/http"
	"strings"

	"wsapi/app"
)

// formValue reads a field of a bounded form body.
func formValue(rq *Request, name string) string {
	rq.R.Body = http.MaxBytesReader(rq.W, rq.R.Body, maxFormBytes)
	return rq.R.PostFormValue(name)
}

// reply is POST /app/chats/{id}/reply: the member's message to the contact, through the
// same AddMessage as the API's POST .../messages with role admin.
func (s *Server) reply(rq *Request) error {
	text := strings.TrimSpace(formValue(rq, "text"))
	if text == "" {
		return app.Invalid("text", "is empty: write a reply first")
	}
	in := app.MessageInput{Role: "admin", Messages: []app.Turn{{Role: "admin", Parts: []app.Part{{Type: "text", Text: text}}}}}
	m, err := s.svc.AddMessage(rq.Ctx(), rq.Caller(), rq.Params.ByName("id"), in)
	if err != nil {
		return err
	}
	c, err := s.svc.GetChat(rq.Ctx(), rq.Org(), m.ChatID)
	if err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "message", s.msg(rq, c, m))
}

// note is POST /app/chats/{id}/note: a private note on the chat's contact (the same note
// the API's POST .../contacts/{id}/notes makes), shown to members only.
func (s *Server) note(rq *Request) error {
	text := strings.TrimSpace(formValue(rq, "text"))
	c, err := s.svc.GetChat(rq.Ctx(), rq.Org(), rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	if c.ContactID == "" {
		return app.Invalid("text", "this chat has no contact to keep a note on")
	}
	n, err := s.svc.CreateNote(rq.Ctx(), rq.Caller(), c.ContactID, app.NoteInput{Content: text})
	if err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "note-added", noteView(n)) // in the timeline and the contact pane
}

func noteView(n app.Note) msgView {
	return msgView{ID: n.ID, Role: "note", Author: n.User.Name, Text: n.Content, At: n.CreatedAt}
}

func (s *Server) markRead(rq *Request) error {
	if _, err := s.svc.MarkChatRead(rq.Ctx(), rq.Org(), rq.Params.ByName("id")); err != nil {
		return err
	}
	rq.W.WriteHeader(http.StatusNoContent)
	return nil
}

// patch applies a ChatPatch through the API's UpdateChat and answers the redrawn header.
func (s *Server) patch(rq *Request, in app.ChatPatch) error {
	c, err := s.svc.UpdateChat(rq.Ctx(), rq.Org(), rq.Params.ByName("id"), in)
	if err != nil {
		return err
	}
	h, err := s.header(rq, c)
	if err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "header", h)
}

// takeOver assigns the chat to the member and turns the AI off: the member answers now.
func (s *Server) takeOver(rq *Request) error {
	off := false
	return s.patch(rq, app.ChatPatch{AIEnabled: &off, AssignedUserID: app.Optional[string]{Set: true, Value: rq.Session.MemberID}})
}

// handBack turns the AI on again and unassigns the chat: the assistant answers the
// contact's next message (docs/webapp.md).
func (s *Server) handBack(rq *Request) error {
	on := true
	return s.patch(rq, app.ChatPatch{AIEnabled: &on, AssignedUserID: app.Optional[string]{Set: true, Null: true}})
}

// assign is POST /app/chats/{id}/assign with member_id ("" unassigns).
func (s *Server) assign(rq *Request) error {
	id := formValue(rq, "member_id")
	return s.patch(rq, app.ChatPatch{AssignedUserID: app.Optional[string]{Set: true, Value: id, Null: id == ""}})
}

// setState snoozes, resolves or reopens.
func (s *Server) setState(state string) func(*Request) error {
	return func(rq *Request) error { return s.patch(rq, app.ChatPatch{State: &state}) }
}
