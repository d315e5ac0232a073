package whatsapp

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"wsapi/app"
	"wsapi/app/channel"
)

// Window is WhatsApp's customer service window: a free-form message may be sent only within
// 24 hours of the contact's last message; after it, only an approved template.
const Window = 24 * time.Hour

// MaxText is the longest text body WhatsApp takes; longer replies are sent in pieces.
const MaxText = 4096

// code131047 is Meta's "Re-engagement message": the 24-hour window has closed.
const code131047 = 131047

// Sender sends replies through the Cloud API for the delivery worker.
type Sender struct {
	Client *Client
	Store  app.Store // reads the contact's channel and the files a member attached
	Clock  app.Clock
}

var _ channel.Sender = Sender{}

// ErrWindow is the delivery error of a free-form reply outside the 24-hour window.
func ErrWindow(last time.Time) error {
	since := "never wrote on WhatsApp"
	if !last.IsZero() {
		since = "last wrote at " + last.UTC().Format(time.RFC3339)
	}
	return channel.Permanent{Err: errors.New("WhatsApp allows free-form replies only within 24 hours of the contact's last " +
		"message (the contact " + since + "): send an approved template instead (a message part of type template)")}
}

// Send sends m to the contact of chat: a template part as that template (allowed at any
// time), else the text in pieces of at most 4,096 characters and each attached file as media,
// only within the 24-hour window. The external id is the last sent message's wamid.
func (s Sender) Send(ctx context.Context, d app.Deployment, chat app.Chat, m app.Message) (channel.Sent, error) {
	to, err := s.recipient(ctx, chat)
	if err != nil {
		return channel.Sent{}, err
	}
	msgs := s.outgoing(m)
	if len(msgs) == 0 {
		return channel.Sent{}, channel.Permanent{Err: errors.New("this message has nothing WhatsApp can carry (no text, file or template)")}
	}
	if !hasTemplate(m) {
		var last time.Time
		if chat.State != nil {
			last = chat.State.LastContactMessageAt.Time
		}
		if last.IsZero() || s.Clock.Now().Sub(last) > Window {
			return channel.Sent{}, ErrWindow(last)
		}
	}
	var id string
	for _, body := range msgs {
		if f, ok := body["file"].(app.Audio); ok {
			if body, err = s.mediaBody(ctx, d, chat, f); err != nil {
				return channel.Sent{}, Classify(err)
			}
		}
		if id, err = s.Client.SendMessage(ctx, d, to, body); err != nil {
			return channel.Sent{}, Classify(err)
		}
	}
	return channel.Sent{Status: app.DeliverySent, ExternalID: id}, nil
}

// recipient is the wa_id of the chat's contact channel (its user_id, else its phone's digits).
func (s Sender) recipient(ctx context.Context, chat app.Chat) (string, error) {
	var ch app.Channel
	err := s.Store.Read(ctx, func(tx app.Tx) (err error) {
		ch, err = tx.GetChannel(chat.OrgID, chat.ContactChannelID)
		return err
	})
	to := ch.UserID
	if to == "" { // a contact imported with its number: WhatsApp's wa_id is the number's digits
		to = strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, ch.Phone)
	}
	if app.IsNotFound(err) || (err == nil && (ch.Type != "whatsapp" || to == "")) {
		return "", channel.Permanent{Err: errors.New("the chat's contact has no WhatsApp number")}
	}
	return to, err
}

// Classify makes Meta's errors that no retry fixes permanent: the closed window (131047),
// and every 4xx but rate limits (HTTP 429, codes 4, 80007, 130429, 131056).
func Classify(err error) error {
	var e *APIError
	if !errors.As(err, &e) {
		return err
	}
	switch {
	case e.Code == code131047:
		return channel.Permanent{Err: errors.New("WhatsApp refused a free-form reply: more than 24 hours have passed since " +
			"the contact's last message; send an approved template instead (" + e.Error() + ")")}
	case e.HTTPStatus == 429 || e.Code == 4 || e.Code == 80007 || e.Code == 130429 || e.Code == 131056:
		return err
	case e.HTTPStatus >= 400 && e.HTTPStatus < 500:
		return channel.Permanent{Err: err}
	}
	return err
}

// SendMessage posts one message body to the contact and answers its wamid.
func (c *Client) SendMessage(ctx context.Context, d app.Deployment, to string, body map[string]any) (string, error) {
	body["messaging_product"], body["recipient_type"], body["to"] = "whatsapp", "individual", to
	var out struct {
		Messages []struct {
			ID string `json:"id"`
		} `json:"messages"`
	}
	err := c.call(ctx, d.Secrets["access_token"], "POST", "/"+url.PathEscape(phoneNumberID(d))+"/messages", body, &out)
	if err != nil {
		return "", err
	}
	if len(out.Messages) == 0 || out.Messages[0].ID == "" {
		return "", errors.New("WhatsApp: the Graph API answered no message id")
	}
	return out.Messages[0].ID, nil
}

func hasTemplate(m app.Message) bool {
	for _, t := range m.Messages {
		for _, p := range t.Parts {
			if p.Type == "template" && p.Template != nil {
				return true
			}
		}
	}
	return false
}
