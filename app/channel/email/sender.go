package email

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	netmail "net/mail"
	"strings"
	"time"

	"github.com/emersion/go-smtp"
	gomail "github.com/wneessen/go-mail"

	"wsapi/app"
	"wsapi/app/channel"
	"wsapi/app/mail"
)

// Relay sends a composed, signed message (app/mail.Mailer over email.smtp_url).
type Relay interface {
	SendRaw(ctx context.Context, from string, to []string, raw []byte) error
}

// Sender is the delivery worker's connector for email chats: the assistant's and members'
// replies go out from the integration's identity, DKIM-signed with its domain's key,
// threaded (In-Reply-To, References, "Re:"), with a Reply-To of the chat's reply+<token>
// address and a Message-ID made from the message's id (so a retry sends the same one).
type Sender struct {
	Service *app.Service
	Relay   Relay // nil: email.smtp_url is not set, every send fails
}

var _ channel.Sender = (*Sender)(nil)

// signedHeaders are the header fields the reply's DKIM signature covers.
var signedHeaders = []string{"From", "To", "Subject", "Date", "Message-ID", "In-Reply-To", "References", "Reply-To",
	"MIME-Version", "Content-Type"}

// reply is one reply as it will be sent.
type reply struct {
	from, fromName, to, subject, replyTo, messageID string
	inReplyTo                                       string
	references                                      []string
	domain                                          app.Domain
}

// Send composes, records and sends one reply. A relay's 5xx is permanent (the delivery is
// FAILED with its words); anything else is retried.
func (s *Sender) Send(ctx context.Context, d app.Deployment, chat app.Chat, m app.Message) (channel.Sent, error) {
	if s.Relay == nil {
		return channel.Sent{}, channel.Permanent{Err: errors.New("email.smtp_url is not configured: this server cannot send mail")}
	}
	r, err := s.prepare(ctx, d, chat, m)
	if err != nil {
		return channel.Sent{}, err
	}
	raw, err := compose(r, m, s.Service.Clock().Now())
	if err != nil {
		return channel.Sent{}, channel.Permanent{Err: err}
	}
	if err := s.Relay.SendRaw(ctx, r.from, []string{r.to}, raw); err != nil {
		var se *smtp.SMTPError
		if errors.As(err, &se) && se.Code >= 500 {
			return channel.Sent{}, channel.Permanent{Err: fmt.Errorf("the mail server refused the reply: %d %s", se.Code, se.Message)}
		}
		return channel.Sent{}, err
	}
	return channel.Sent{Status: app.DeliverySent, ExternalID: r.messageID}, nil
}

// prepare reads what the reply needs and lists its Message-ID in the thread first, so a
// contact's answer that arrives before the send is recorded still finds the chat.
func (s *Sender) prepare(ctx context.Context, d app.Deployment, chat app.Chat, m app.Message) (reply, error) {
	var r reply
	err := write(s.Service, ctx, func(tx Tx) error {
		identityID, _ := d.Config["identity_id"].(string)
		id, err := tx.GetIdentity(d.OrgID, identityID)
		if app.IsNotFound(err) {
			return channel.Permanent{Err: errors.New("the integration's email identity was deleted")}
		}
		if err != nil {
			return err
		}
		if id.Status != app.StatusVerified {
			return channel.Permanent{Err: fmt.Errorf("the email identity %s is not verified (verify its domain's DNS records)", id.Email)}
		}
		if r.domain, err = tx.GetDomain(d.OrgID, id.DomainID); err != nil {
			return err
		}
		r.from, r.messageID = id.Email, m.ID+"@"+r.domain.Domain
		if id.Name != nil {
			r.fromName = *id.Name
		}
		if err := s.recipient(tx, chat, &r); err != nil {
			return err
		}
		if err := threadHeaders(tx, chat, &r); err != nil {
			return err
		}
		r.replyTo = "reply+" + replyToken(s.Service.Tokens(), chat.ID) + "@" + r.domain.Domain
		if err := tx.SetEmailChat(d.OrgID, chat.ID, tokenHash(replyToken(s.Service.Tokens(), chat.ID)), r.subject); err != nil {
			return err
		}
		return tx.RecordEmail(d.OrgID, r.messageID, chat.ID, m.ID, "out", m.Role, app.At(s.Service.Clock().Now()))
	})
	return r, err
}

// recipient is the chat's contact address; a suppressed one is never sent to again.
func (s *Sender) recipient(tx Tx, chat app.Chat, r *reply) error {
	ch, err := tx.GetChannel(chat.OrgID, chat.ContactChannelID)
	if app.IsNotFound(err) || (err == nil && strings.TrimSpace(ch.Email) == "") {
		return channel.Permanent{Err: errors.New("the chat's contact has no email address")}
	}
	if err != nil {
		return err
	}
	r.to = strings.TrimSpace(ch.Email)
	suppressed, err := tx.IsSuppressed(chat.OrgID, r.to)
	if err == nil && suppressed {
		return channel.Permanent{Err: fmt.Errorf("%s is on the suppression list (it bounced or complained)", r.to)}
	}
	return err
}

// threadHeaders fills subject, In-Reply-To and References from the chat's mails.
func threadHeaders(tx Tx, chat app.Chat, r *reply) error {
	subject, err := tx.EmailChatSubject(chat.ID)
	if err != nil {
		return err
	}
	if subject == "" && chat.Title != nil {
		subject = *chat.Title
	}
	r.subject = replySubject(subject)
	if r.references, err = tx.EmailMailIDs(chat.ID, 20); err != nil {
		return err
	}
	refs := r.references[:0:0]
	for _, id := range r.references {
		if id != r.messageID {
			refs = append(refs, id)
		}
	}
	r.references = refs
	if len(refs) > 0 {
		r.inReplyTo = refs[len(refs)-1]
	}
	return nil
}

// replySubject is "Re: " and the thread's subject, once.
func replySubject(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "Re: your message"
	}
	if len(s) >= 3 && strings.EqualFold(s[:3], "re:") {
		return s
	}
	return "Re: " + s
}

// compose builds the reply: plain text and a simple HTML part, signed with the domain's key.
func compose(r reply, m app.Message, now time.Time) ([]byte, error) {
	msg := gomail.NewMsg()
	msg.FromMailAddress(&netmail.Address{Name: r.fromName, Address: r.from})
	if err := msg.To(r.to); err != nil {
		return nil, fmt.Errorf("email: to: %w", err)
	}
	if err := msg.ReplyTo(r.replyTo); err != nil {
		return nil, fmt.Errorf("email: reply-to: %w", err)
	}
	msg.Subject(r.subject)
	msg.SetDateWithValue(now)
	msg.SetMessageIDWithValue(r.messageID)
	if r.inReplyTo != "" {
		msg.SetGenHeader("In-Reply-To", "<"+r.inReplyTo+">")
		refs := make([]string, len(r.references))
		for i, id := range r.references {
			refs[i] = "<" + id + ">"
		}
		msg.SetGenHeader("References", strings.Join(refs, " "))
	}
	msg.SetGenHeader("Auto-Submitted", autoSubmitted(m))
	text := channel.Text(m)
	msg.SetBodyString(gomail.TypeTextPlain, text)
	msg.AddAlternativeString(gomail.TypeTextHTML, replyHTML(text))
	var raw bytes.Buffer
	if _, err := msg.WriteTo(&raw); err != nil {
		return nil, fmt.Errorf("email: compose: %w", err)
	}
	return mail.Sign(raw.Bytes(), r.domain.Domain, r.domain.Selector, r.domain.PrivateKeyPEM, signedHeaders)
}

// autoSubmitted marks the assistant's replies auto-replied (RFC 3834), so other robots do
// not answer them; a member's reply is a person's.
func autoSubmitted(m app.Message) string {
	if m.Role == "assistant" {
		return "auto-replied"
	}
	return "no"
}

// replyHTML is the text as escaped paragraphs.
func replyHTML(text string) string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><body>")
	for _, para := range strings.Split(text, "\n\n") {
		b.WriteString("<p>")
		b.WriteString(strings.ReplaceAll(html.EscapeString(para), "\n", "<br>"))
		b.WriteString("</p>")
	}
	b.WriteString("</body></html>")
	return b.String()
}
