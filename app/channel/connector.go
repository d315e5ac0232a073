package channel

import (
	"context"
	"io"
	"net/http"

	"wsapi/app"
)

// Sender sends one reply to the contact. The message is finished (an assistant's reply once
// its run is COMPLETED, or a member's message); the chat gives the contact's channel. It
// answers the delivery's new status (SENT, or DELIVERED when the channel confirms at once)
// and the provider's id of the sent message.
type Sender interface {
	Send(ctx context.Context, d app.Deployment, chat app.Chat, m app.Message) (Sent, error)
}

// Sent is what a send came to.
type Sent struct {
	Status     string // app.DeliverySent or app.DeliveryDelivered
	ExternalID string
}

// Inbound parses what a provider POSTs to /hooks/{type}/{asi}: the contacts' messages and
// the delivery statuses of earlier replies. It checks the request's signature itself.
type Inbound interface {
	Parse(ctx context.Context, d app.Deployment, r *http.Request) ([]Incoming, error)
}

// Incoming is one thing a provider reported.
type Incoming struct {
	// A contact's message: who wrote, what, and media to fetch.
	From   app.ChannelProfile
	Text   string
	Media  []string
	ExtID  string
	Status string // set instead for a delivery status of ExtID (DELIVERED, READ, FAILED)
}

// MediaFetcher downloads a file a contact sent, by the provider's reference.
type MediaFetcher interface {
	Fetch(ctx context.Context, d app.Deployment, ref string) (name, mimetype string, body io.ReadCloser, err error)
}

// Permanent marks a send error that no retry can fix (a bot blocked by the user, a number
// that does not exist): the delivery fails at once.
type Permanent struct{ Err error }

func (p Permanent) Error() string { return p.Err.Error() }
func (p Permanent) Unwrap() error { return p.Err }
