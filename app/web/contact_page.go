package web

import (
	"net/http"
	"strings"

	"wsapi/app"
)

// contactPageView is one contact's page: its channels, segments and state, and (contacts:write)
// the forms that change them.
type contactPageView struct {
	Contact  app.Contact
	CanWrite bool
	shown    // a refused form shown back: "edit" or "channel"
	Saved    bool
}

// channelInputs are the channels a contact form names (an email address; a phone number, as
// WhatsApp reaches it), and for each the form field it came from.
func channelInputs(f form) (ins []app.ChannelInput, fields []string) {
	if v := strings.TrimSpace(f.Get("email")); v != "" {
		ins = append(ins, app.ChannelInput{ChannelProfile: app.ChannelProfile{Type: app.IntegrationEmail, Email: v}})
		fields = append(fields, "email")
	}
	if v := strings.TrimSpace(f.Get("phone")); v != "" {
		ins = append(ins, app.ChannelInput{ChannelProfile: app.ChannelProfile{Type: "whatsapp", Phone: v}})
		fields = append(fields, "phone")
	}
	return ins, fields
}

// fieldsOf renames the API's "channels[i].x" errors to the form fields they came from.
func fieldsOf(f *form, fields []string) {
	for k, why := range f.Errors {
		for i, name := range fields {
			if strings.HasPrefix(k, "channels["+itoa(i)+"]") {
				delete(f.Errors, k)
				f.Errors[name] = why
			}
		}
	}
}

// createContact is POST /app/contacts: a contact with a name and an email or a phone (the
// API's CreateContact), then its page.
func (s *Server) createContact(rq *Request) error {
	f := newForm(rq)
	ins, fields := channelInputs(f)
	c, err := s.svc.CreateContact(rq.Ctx(), rq.Org(), app.ContactInput{Name: strings.TrimSpace(f.Get("name")), Channels: ins})
	if err == nil {
		return s.redirect(rq, "/app/contact/"+c.ID)
	}
	return s.contactsFailed(rq, f, "contact", err, fields...)
}

// contact is GET /app/contact/{id}: the contact's page.
func (s *Server) contact(rq *Request) error {
	return s.renderContact(rq, http.StatusOK, form{}, "", rq.R.URL.Query().Get("saved") == "1")
}

func (s *Server) renderContact(rq *Request, status int, f form, formFor string, saved bool) error {
	c, err := s.svc.GetContact(rq.Ctx(), rq.Org(), rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	v := contactPageView{Contact: c, CanWrite: rq.Can(app.Write("contacts")), shown: shown{f, formFor}, Saved: saved}
	return s.render(rq, status, "contact-page", s.page(rq, c.Name, v))
}

// updateContact is POST /app/contact/{id}: its name, blocked and unsubscribed (the API's
// UpdateContact).
func (s *Server) updateContact(rq *Request) error {
	f := newForm(rq)
	name := strings.TrimSpace(f.Get("name"))
	blocked, unsubscribed := f.Get("blocked") == "on", f.Get("unsubscribed") == "on"
	_, err := s.svc.UpdateContact(rq.Ctx(), rq.Org(), rq.Params.ByName("id"),
		app.ContactPatch{Name: &name, Blocked: &blocked, Unsubscribed: &unsubscribed})
	return s.contactFormDone(rq, f, "edit", err)
}

// addContactChannel is POST /app/contact/{id}/channels: an email or a phone more (the API's
// AddChannel).
func (s *Server) addContactChannel(rq *Request) error {
	f := newForm(rq)
	ins, _ := channelInputs(f)
	if len(ins) == 0 {
		return s.contactFormDone(rq, f, "channel", app.Invalid("email", "give an email address or a phone number"))
	}
	// AddChannel names a channel's fields at the top (email, phone), as the form does.
	for _, in := range ins {
		if _, err := s.svc.AddChannel(rq.Ctx(), rq.Org(), rq.Params.ByName("id"), in); err != nil {
			return s.contactFormDone(rq, f, "channel", err)
		}
	}
	return s.contactFormDone(rq, f, "channel", nil)
}

// contactFormDone answers a contact form: its page again, saved, or with the form's errors.
func (s *Server) contactFormDone(rq *Request, f form, formFor string, err error) error {
	if err == nil {
		return s.redirect(rq, "/app/contact/"+rq.Params.ByName("id")+"?saved=1")
	}
	status, err := f.failed(err)
	if err != nil {
		return err
	}
	return s.renderContact(rq, status, f, formFor, false)
}

// deleteContact is POST /app/contact/{id}/delete: the API's DeleteContact, then the list.
func (s *Server) deleteContact(rq *Request) error {
	if err := s.svc.DeleteContact(rq.Ctx(), rq.Org(), rq.Params.ByName("id")); err != nil {
		return err
	}
	return s.redirect(rq, "/app/contacts")
}
