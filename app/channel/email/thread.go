package email

import (
	"strings"

	"wsapi/app"
)

// thread is the chat a mail joins, and its contact.
type thread struct {
	chatID, contactID string
	blocked           bool
}

// thread finds the mail's chat: the one whose reply+<token> address it was sent to, else the
// one of a Message-ID it references (In-Reply-To, References) — in both cases only when the
// sender is an address of that chat's contact, so two people answering one mail never share
// a chat. Otherwise a new chat with the sender's contact (made when unknown).
func (r *Receiver) thread(tx Tx, in inbound) (thread, error) {
	from := strings.ToLower(in.p.From.Address)
	for _, chatID := range r.candidates(tx, in) {
		th, ok, err := r.joinable(tx, in.d.OrgID, chatID, from)
		if err != nil || ok {
			return th, err
		}
	}
	ch, err := r.contactChannel(tx, in.d.OrgID, in.p.From.Address, in.p.From.Name)
	if err != nil {
		return thread{}, err
	}
	s := r.Service
	chatID, err := s.StartConversation(tx, in.d, ch.ID, in.p.Subject, "")
	if err != nil {
		return thread{}, err
	}
	if err := tx.SetEmailChat(in.d.OrgID, chatID, tokenHash(replyToken(s.Tokens(), chatID)), in.p.Subject); err != nil {
		return thread{}, err
	}
	c, err := tx.GetContact(in.d.OrgID, ch.ContactID)
	return thread{chatID: chatID, contactID: ch.ContactID, blocked: c.Blocked}, err
}

// candidates are the chats the mail points at, best first: reply+ addresses, then references.
func (r *Receiver) candidates(tx Tx, in inbound) []string {
	var out []string
	for _, rcpt := range in.env.RcptTo {
		if token, ok := ReplyTokenOf(rcpt); ok {
			if org, chatID, err := tx.EmailChatOfToken(tokenHash(token)); err == nil && org == in.d.OrgID {
				out = append(out, chatID)
			}
		}
	}
	if len(in.p.References) > 0 {
		if chatID, err := tx.EmailThreadChat(in.d.OrgID, in.p.References); err == nil {
			out = append(out, chatID)
		}
	}
	return out
}

// joinable tells whether the sender may join a chat: it is an email conversation whose
// contact has the sender's address.
func (r *Receiver) joinable(tx Tx, orgID, chatID, from string) (thread, bool, error) {
	c, err := tx.GetChatRow(orgID, chatID)
	if app.IsNotFound(err) {
		return thread{}, false, nil
	}
	if err != nil || c.ContactID == "" || c.State == nil || c.State.IntegrationID != app.IntegrationEmail {
		return thread{}, false, err
	}
	contact, err := tx.GetContact(orgID, c.ContactID)
	if app.IsNotFound(err) {
		return thread{}, false, nil
	}
	if err != nil {
		return thread{}, false, err
	}
	for _, ch := range contact.Channels {
		if strings.EqualFold(strings.TrimSpace(ch.Email), from) {
			return thread{chatID: chatID, contactID: contact.ID, blocked: contact.Blocked}, true, nil
		}
	}
	return thread{}, false, nil
}

// contactChannel is the sender's `email` channel: found by address, added to the contact
// that has the address on another channel, or made with a new contact.
func (r *Receiver) contactChannel(tx Tx, orgID, address, name string) (app.Channel, error) {
	ch, err := tx.EmailChannel(orgID, address)
	if err == nil && ch.Type == app.IntegrationEmail {
		return ch, nil
	}
	if err != nil && !app.IsNotFound(err) {
		return app.Channel{}, err
	}
	prof := app.ChannelProfile{Type: app.IntegrationEmail, Email: address, Name: name}
	return r.Service.NewChannel(tx, orgID, ch.ContactID, prof, name)
}

// ReplyTokenOf answers the token of a reply+<token>@domain address.
func ReplyTokenOf(addr string) (string, bool) {
	local, _, ok := strings.Cut(strings.ToLower(strings.TrimSpace(addr)), "@")
	if !ok {
		return "", false
	}
	token, ok := strings.CutPrefix(local, "reply+")
	return token, ok && token != ""
}
