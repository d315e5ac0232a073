package email

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"

	"github.com/emersion/go-message"
	"github.com/emersion/go-message/mail"

	"wsapi/app"
	"wsapi/app/channel"
)

// The SMTP listener stores each accepted mail in the inbound queue (app/channel/inbound) and
// answers 250 once that write is committed; the inbound worker hands it back to Take, which
// parses, checks, threads and stores it as Receive does (docs/decisions/email-queue.md). A
// queued body is the envelope as one JSON line, then the raw mail.

// queuedEnvelope is an Envelope as queued.
type queuedEnvelope struct {
	MailFrom string   `json:"mail_from"`
	RcptTo   []string `json:"rcpt_to"`
	RemoteIP string   `json:"remote_ip,omitempty"`
	HELO     string   `json:"helo"`
	Seq      int64    `json:"seq,omitempty"` // the listener's order of acceptance (order.go)
}

// envelopeLine is the first line of a queued body (JSON never holds a raw newline).
func envelopeLine(env Envelope) []byte {
	q := queuedEnvelope{MailFrom: env.MailFrom, RcptTo: env.RcptTo, HELO: env.HELO, Seq: env.seq}
	if env.RemoteIP != nil {
		q.RemoteIP = env.RemoteIP.String()
	}
	b, _ := json.Marshal(q) // strings only: it cannot fail
	return append(b, '\n')
}

// unframe splits a queued body into its envelope and the raw mail (not copied).
func unframe(body []byte) (Envelope, []byte, error) {
	line, raw, ok := bytes.Cut(body, []byte{'\n'})
	var q queuedEnvelope
	if !ok {
		return Envelope{}, nil, errors.New("email: a queued mail without its envelope")
	}
	if err := json.Unmarshal(line, &q); err != nil {
		return Envelope{}, nil, fmt.Errorf("email: a queued mail's envelope: %w", err)
	}
	env := Envelope{MailFrom: q.MailFrom, RcptTo: q.RcptTo, HELO: q.HELO, Source: "smtp", seq: q.Seq}
	if q.RemoteIP != "" {
		env.RemoteIP = net.ParseIP(q.RemoteIP)
	}
	return env, raw, nil
}

var _ channel.Taker = (*Receiver)(nil)

// Take is channel.Taker: a mail the listener queued, taken in as Receive takes one, after the
// mails its sender had accepted before it (order.go); done drops it from the queue in the
// write that stores it. A mail no retry can take (not a mail, no sender, over the size
// limit) is a Permanent error: dropped, and logged by the worker.
func (r *Receiver) Take(ctx context.Context, d app.Deployment, body []byte, done func(app.Tx) error) error {
	env, raw, err := unframe(body)
	if err != nil {
		return channel.Permanent{Err: err}
	}
	if int64(len(raw)) > r.limit() {
		return channel.Permanent{Err: ErrTooBig}
	}
	if from, _ := Acceptable(raw); env.seq != 0 && from != "" {
		key := orderKey(d.ID, from)
		defer r.order.forget(key, env.seq)
		if err := r.order.wait(ctx, key, env.seq); err != nil {
			return err
		}
	}
	release, err := r.shares.acquire(ctx, d.ID) // after the wait: a slot never waits on an earlier mail
	if err != nil {
		return err
	}
	defer release()
	err = r.receive(ctx, d, raw, env, done)
	if errors.Is(err, ErrNoHeader) || errors.Is(err, ErrNoSender) {
		return channel.Permanent{Err: err}
	}
	return err
}

// Acceptable is what the listener checks of a mail before it queues it, reading its header
// only: the refusals of Receive that depend on the mail itself, so that the sender still
// hears them (554) rather than the mail being dropped after a 250. It answers the From
// address. A report (a DSN) may come without From: Receive reads its body.
func Acceptable(raw []byte) (from string, err error) {
	e, err := message.ReadWithOptions(bytes.NewReader(raw), &message.ReadOptions{MaxHeaderBytes: maxHeader})
	if e == nil {
		return "", fmt.Errorf("%w: %v", ErrNoHeader, err)
	}
	a := fromOf(mail.Header{Header: e.Header})
	if a != nil && a.Address != "" {
		return a.Address, nil
	}
	if ct, _, _ := e.Header.ContentType(); ct == "multipart/report" {
		return "", nil
	}
	return "", ErrNoSender
}
