package whatsapp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"

	"wsapi/app"
	"wsapi/app/channel"
)

// Channel is the WhatsApp connector in every role the server gives one: the set-up check
// (app.Connector), the hook's check and parsing (channel.Inbound), media downloads
// (channel.MediaFetcher) and sending (channel.Sender).
type Channel struct {
	Client *Client
	Store  app.Store
	Clock  app.Clock
}

var (
	_ app.Connector        = Channel{}
	_ channel.Inbound      = Channel{}
	_ channel.MediaFetcher = Channel{}
	_ channel.Sender       = Channel{}
	_ channel.Challenger   = Channel{}
)

// Challenge answers Meta's subscription check with the integration's verify_token.
func (c Channel) Challenge(d app.Deployment, q url.Values) (string, bool) { return Challenge(d, q) }

// Verify reads the integration's phone number with its access token.
func (c Channel) Verify(ctx context.Context, d app.Deployment) error {
	return Connector{Client: c.Client}.Verify(ctx, d)
}

// Send sends a reply (Sender).
func (c Channel) Send(ctx context.Context, d app.Deployment, chat app.Chat, m app.Message) (channel.Sent, error) {
	return Sender(c).Send(ctx, d, chat, m)
}

var errUnsigned = errors.New("whatsapp: X-Hub-Signature-256 is missing or does not sign this body with the app secret")

// CheckRequest refuses a POST whose X-Hub-Signature-256 is not the HMAC-SHA256 of its raw
// body under the integration's app_secret (constant time).
func (c Channel) CheckRequest(d app.Deployment, header http.Header, body []byte) error {
	if !Signed(d, header.Get("X-Hub-Signature-256"), body) {
		return errUnsigned
	}
	return nil
}

// Parse reads a stored webhook body into the contacts' messages and our messages' statuses.
func (c Channel) Parse(_ context.Context, _ app.Deployment, body []byte) ([]channel.Incoming, error) {
	in, st, err := Parse(body)
	if err != nil {
		return nil, err
	}
	out := make([]channel.Incoming, 0, len(in)+len(st))
	for _, m := range in {
		it := channel.Incoming{ExtID: m.ExtID, From: m.From, Text: m.Text}
		for _, md := range m.Media {
			it.Media = append(it.Media, channel.Media{Ref: md.ID, Name: md.Filename, Mimetype: md.MimeType})
		}
		out = append(out, it)
	}
	for _, s := range st {
		out = append(out, channel.Incoming{ExtID: s.ExtID, Status: s.Status, Error: s.Error})
	}
	return out, nil
}

// Fetch downloads a contact's media by its id.
func (c Channel) Fetch(ctx context.Context, d app.Deployment, ref string) (string, string, io.ReadCloser, error) {
	f, err := c.Client.Fetch(ctx, d, Media{ID: ref})
	if err != nil {
		return "", "", nil, err
	}
	return f.Name, f.MimeType, io.NopCloser(bytes.NewReader(f.Data)), nil
}
