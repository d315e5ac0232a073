package web

import (
	"net/http"

	"wsapi/app"
)

// contactView is the contact pane: channels, segments, notes, memories, other chats.
type contactView struct {
	Contact  app.Contact
	Notes    []app.Note
	Memories []app.Memory
	Others   []chatRow
	ChatID   string
}

func (s *Server) contactView(rq *Request, c app.Chat) (*contactView, error) {
	if c.ContactID == "" || !rq.Can(app.Read("contacts")) {
		return nil, nil
	}
	ct, err := s.svc.GetContact(rq.Ctx(), rq.Org(), c.ContactID)
	if err != nil {
		return nil, err
	}
	v := &contactView{Contact: ct, ChatID: c.ID}
	pg := app.Page{Page: 1, Take: 20}
	notes, err := s.svc.ListNotes(rq.Ctx(), rq.Org(), ct.ID, pg)
	if err != nil {
		return nil, err
	}
	mems, err := s.svc.ListMemories(rq.Ctx(), rq.Org(), ct.ID, "", pg)
	if err != nil {
		return nil, err
	}
	v.Notes, v.Memories = notes.Items, mems.Items
	if rq.Can(app.Read("inbox")) {
		others, err := s.svc.Inbox(rq.Ctx(), rq.Org(), app.InboxFilter{ContactID: ct.ID}, "", pg)
		if err != nil {
			return nil, err
		}
		for _, o := range others.Items {
			if o.ID != c.ID {
				v.Others = append(v.Others, s.row(o, listQuery{View: "ALL", Chat: o.ID}))
			}
		}
	}
	return v, nil
}

// contactPane is GET /app/chats/{id}/contact.
func (s *Server) contactPane(rq *Request) error {
	c, err := s.svc.GetChat(rq.Ctx(), rq.Org(), rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	v, err := s.contactView(rq, c)
	if err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "contact", v)
}
