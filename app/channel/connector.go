package channel

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

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

// Inbound reads what a messaging app's provider POSTs to /hooks/{type}/{asi}
// (app/channel/inbound). The two halves run at different times:
//
//   - CheckRequest runs in the hook, before anything is stored: it proves the request is the
//     provider's (Telegram's secret token header, WhatsApp's signature over the raw body),
//     comparing in constant time. An error refuses the request (403) and nothing is kept.
//   - Parse runs later, in the inbound worker, on the raw body the hook stored: the contacts'
//     messages (with the media to fetch) and the delivery statuses of earlier replies. An
//     error drops the body as one that can never be read (it is logged).
type Inbound interface {
	CheckRequest(d app.Deployment, header http.Header, body []byte) error
	Parse(ctx context.Context, d app.Deployment, body []byte) ([]Incoming, error)
}

// Taker takes in a queued body whole, for a channel that queues its own input and stores it
// its own way (email: the SMTP listener queues each accepted mail, and the worker threads
// it). The inbound worker calls it instead of Inbound.Parse. Take calls done inside the write
// that stores what the body held, so the body leaves the queue in the same commit; an error
// wrapped in Permanent drops the body at once (it is logged), any other is retried.
type Taker interface {
	Take(ctx context.Context, d app.Deployment, body []byte, done func(app.Tx) error) error
}

// Incoming is one thing a provider reported: a contact's message, or (Status set) the
// delivery status of an earlier reply.
type Incoming struct {
	// ExtID is the provider's id of what it reported (a Telegram update_id, a WhatsApp
	// message id): a message whose ExtID was taken in before is dropped as a duplicate. For a
	// status, it is the id the provider gave the sent reply (its delivery's external_id).
	ExtID string
	// A contact's message: who wrote (Type is filled by the pipeline), its text, the media to
	// fetch with the connector's MediaFetcher.
	From  app.ChannelProfile
	Text  string
	Media []Media
	// Status is set instead for a delivery status of ExtID: app.DeliverySent,
	// app.DeliveryDelivered, app.DeliveryRead or app.DeliveryFailed (with Error).
	Status string
	Error  string
}

// Media is a file a contact sent, by the provider's reference, with the name and type the
// update gave (either may be empty; Fetch may answer better ones).
type Media struct {
	Ref, Name, Mimetype string
}

// MediaFetcher downloads a file a contact sent, by the provider's reference. The pipeline
// bounds what it reads of body and closes it.
type MediaFetcher interface {
	Fetch(ctx context.Context, d app.Deployment, ref string) (name, mimetype string, body io.ReadCloser, err error)
}

// Typer shows the contact that an answer is being written (Telegram's "typing..."), called
// every few seconds while the assistant's run works (app/channel/typing).
type Typer interface {
	Typing(ctx context.Context, d app.Deployment, chat app.Chat) error
}

// Permanent marks a send error that no retry can fix (a bot blocked by the user, a number
// that does not exist): the delivery fails at once.
type Permanent struct{ Err error }

func (p Permanent) Error() string { return p.Err.Error() }
func (p Permanent) Unwrap() error { return p.Err }

// RetryAfter marks a send error whose provider said when to try again (Telegram's 429 with
// parameters.retry_after): the delivery worker waits that long, using no attempt.
type RetryAfter struct {
	Err   error
	After time.Duration
}

func (r RetryAfter) Error() string { return r.Err.Error() }
func (r RetryAfter) Unwrap() error { return r.Err }

// AsRetryAfter answers the wait an error asks for, if it is a RetryAfter.
func AsRetryAfter(err error) (time.Duration, bool) {
	var ra RetryAfter
	if errors.As(err, &ra) && ra.After > 0 {
		return ra.After, true
	}
	return 0, false
}
