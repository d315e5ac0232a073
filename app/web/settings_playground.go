package web

import (
	"net/http"
	"strings"

	"wsapi/app"
)

// playgroundView is the playground: a chat without a contact where the member is the user
// and the assistant answers as it would a contact, streamed live like the inbox's.
type playgroundView struct {
	A        app.Assistant
	Nav      assistantNav
	Chat     *app.Chat
	Messages messagesView
	CanPlay  bool
}

// playground is GET /app/assistants/{id}/playground[?chat=ID].
func (s *Server) playground(rq *Request) error {
	a, err := s.svc.GetAssistant(rq.Ctx(), rq.Org(), rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	v := playgroundView{A: a, Nav: s.nav(rq, a, "playground"), CanPlay: rq.Can(app.Write("inbox")) && rq.Can(app.Read("inbox"))}
	if id := rq.R.URL.Query().Get("chat"); id != "" && v.CanPlay {
		c, err := s.playgroundChat(rq, a.ID, id)
		if err != nil {
			return err
		}
		if v.Messages, err = s.messages(rq, c, 0, app.Time{}); err != nil {
			return err
		}
		v.Chat = &c
	}
	return s.render(rq, http.StatusOK, "playground", s.page(rq, a.Name+" · Playground", v))
}

// playgroundChat reads a chat of the playground of assistant id: one without a contact,
// with this assistant; any other chat is not found here.
func (s *Server) playgroundChat(rq *Request, assistantID, chatID string) (app.Chat, error) {
	c, err := s.svc.GetChat(rq.Ctx(), rq.Org(), chatID)
	if err != nil {
		return c, err
	}
	if c.ContactID != "" || c.State == nil || c.State.AssistantID == nil || *c.State.AssistantID != assistantID {
		return c, app.NotFound("playground chat")
	}
	return c, nil
}

// startPlayground is POST /app/assistants/{id}/playground: a new temporary chat with the
// assistant (the API's POST /chats without a contact), opened on the page.
func (s *Server) startPlayground(rq *Request) error {
	if !rq.Can(app.Read("assistants")) {
		return app.Forbidden(app.Read("assistants"))
	}
	a, err := s.svc.GetAssistant(rq.Ctx(), rq.Org(), rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	title := "Playground: " + a.Name
	c, err := s.svc.CreateChat(rq.Ctx(), rq.Caller(), app.ChatInput{AssistantID: a.ID, Title: &title, Temporary: true})
	if err != nil {
		return err
	}
	return seeOther(rq, "/app/assistants/"+a.ID+"/playground?chat="+c.ID)
}

// sayPlayground is POST /app/assistants/{id}/playground/{chat}: the member's message as the
// user (AddMessage role user, as the API's POST .../messages); the run worker answers it
// and the page's live stream shows the answer as it is written.
func (s *Server) sayPlayground(rq *Request) error {
	c, err := s.playgroundChat(rq, rq.Params.ByName("id"), rq.Params.ByName("chat"))
	if err != nil {
		return err
	}
	text := strings.TrimSpace(formValue(rq, "text"))
	if text == "" {
		return app.Invalid("text", "is empty: write a message first")
	}
	in := app.MessageInput{Role: "user", Messages: []app.Turn{{Role: "user", Parts: []app.Part{{Type: "text", Text: text}}}}}
	m, err := s.svc.AddMessage(rq.Ctx(), rq.Caller(), c.ID, in)
	if err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "message", s.msg(rq, c, m))
}
