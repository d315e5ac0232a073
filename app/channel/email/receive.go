package email

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"

	"wsapi/app"
)

// Envelope is how a mail arrived: the SMTP envelope, or Source "imap" for a mail fetched from
// a mailbox (no RemoteIP then).
type Envelope struct {
	MailFrom string   // SMTP MAIL FROM ("" = null sender)
	RcptTo   []string // the integration addresses it was accepted for
	RemoteIP net.IP   // nil when fetched over IMAP
	HELO     string
	Source   string // "smtp" or "imap"
	seq      int64  // a queued mail's order of acceptance (order.go); 0: none
}

// Receiver takes inbound mail into chats.
type Receiver struct {
	Service *app.Service
	Auth    Authenticator
	// MaxBytes bounds one raw mail (email.inbound.max_bytes); 0: 25 MiB.
	MaxBytes int64
	// MaxAutoRepliesPerHour is the assistant's share of answers per contact an hour
	// (email.max_auto_replies_per_hour); past it a mail lands without a run. 0: no cap.
	MaxAutoRepliesPerHour int
	Log                   *slog.Logger

	order  order  // the listener's mails, per sender, in the order accepted
	shares shares // the integrations' mails being taken in at once (takeShare)
}

// DefaultMaxBytes is email.inbound.max_bytes's default.
const DefaultMaxBytes = 25 << 20

// ErrTooBig refuses a mail over MaxBytes (SMTP 552).
var ErrTooBig = errors.New("email: message exceeds the size limit")

// ErrNoSender refuses a mail without a From address: it has no contact to belong to.
var ErrNoSender = errors.New("email: the message has no From address")

// Why a mail lands without a run (metadata email.no_run).
const (
	noRunAutoReply = "auto_reply"
	noRunDMARC     = "dmarc_fail"
	noRunNull      = "null_sender"
	noRunCap       = "reply_cap"
	noRunBlocked   = "contact_blocked"
)

// Receive takes one raw RFC 5322 message for an email integration: parse, authenticate,
// thread, store (contact, chat, message, files), and start the assistant's run when allowed.
// The IMAP poller calls it; the SMTP listener queues its mail for Take instead.
func (r *Receiver) Receive(ctx context.Context, d app.Deployment, raw io.Reader, env Envelope) error {
	data, err := r.read(raw)
	if err != nil {
		return err
	}
	return r.receive(ctx, d, data, env, nil)
}

// receive is Receive of a mail in memory; done, when set, runs inside the write that stores
// the mail (or finds it taken before), so that the queue's copy goes in the same commit.
func (r *Receiver) receive(ctx context.Context, d app.Deployment, data []byte, env Envelope, done func(app.Tx) error) error {
	if d.IntegrationID != app.IntegrationEmail {
		return fmt.Errorf("email: integration %s is %s, not email", d.ID, d.IntegrationID)
	}
	p, err := Parse(data)
	if err != nil {
		return err
	}
	if p.DSN != nil {
		return r.bounce(ctx, d, p.DSN, done)
	}
	if p.From == nil || p.From.Address == "" {
		return ErrNoSender
	}
	_, fromDomain, _ := strings.Cut(p.From.Address, "@")
	auth := r.Auth.Check(ctx, data, env, fromDomain)
	in := inbound{d: d, p: p, env: env, auth: auth, raw: data, done: done}
	in.noRun = noRunReason(p, env, auth)
	return r.store(ctx, in)
}

// read takes the raw mail, at most MaxBytes; a source that holds its bytes already is not
// copied again, which matters for a 25 MiB mail.
func (r *Receiver) read(raw io.Reader) ([]byte, error) {
	var data []byte
	if held, ok := raw.(interface{ Bytes() []byte }); ok {
		data = held.Bytes()
	} else {
		var err error
		if data, err = io.ReadAll(io.LimitReader(raw, r.limit()+1)); err != nil {
			return nil, fmt.Errorf("email: read: %w", err)
		}
	}
	if int64(len(data)) > r.limit() {
		return nil, ErrTooBig
	}
	return data, nil
}

// limit is MaxBytes, or its default.
func (r *Receiver) limit() int64 {
	if r.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return r.MaxBytes
}

// inbound is one mail on its way into a chat.
type inbound struct {
	d     app.Deployment
	p     *Parsed
	env   Envelope
	auth  Auth
	raw   []byte
	noRun string
	done  func(app.Tx) error // see receive
}

// noRunReason tells why a mail must not be answered automatically ("" when it may be).
func noRunReason(p *Parsed, env Envelope, auth Auth) string {
	switch {
	case auth.DMARC == "fail":
		return noRunDMARC
	case p.AutoReply != "":
		return noRunAutoReply
	case env.Source != "imap" && env.MailFrom == "":
		return noRunNull
	}
	return ""
}

// store threads the mail and adds it in one write: a mail already taken (by its Message-ID)
// is taken once.
func (r *Receiver) store(ctx context.Context, in inbound) error {
	s := r.Service
	var stopped []string
	err := write(s, ctx, func(tx Tx) error {
		if in.p.MessageID != "" {
			if _, err := tx.EmailThreadChat(in.d.OrgID, []string{in.p.MessageID}); err == nil {
				return then(tx, in.done) // a mail seen before: a resend, a second fetch
			} else if !app.IsNotFound(err) {
				return err
			}
		}
		th, err := r.thread(tx, in)
		if err != nil {
			return err
		}
		if in.noRun == "" {
			if in.noRun, err = r.capped(tx, in.d.OrgID, th.contactID, th.blocked); err != nil {
				return err
			}
		}
		m, st, err := s.AddInbound(tx, app.Inbound{OrgID: in.d.OrgID, ChatID: th.chatID, Text: in.p.Text,
			Files:    append(in.p.Files, app.InboundFile{Name: "message.eml", Mimetype: "message/rfc822", Data: in.raw, Hidden: true}),
			Metadata: map[string]any{"email": in.metadata()}, NoRun: in.noRun != ""})
		if err != nil {
			return err
		}
		stopped = st
		if in.p.MessageID != "" {
			if err := tx.RecordEmail(in.d.OrgID, in.p.MessageID, th.chatID, m.ID, "in", "", m.CreatedAt); err != nil {
				return err
			}
		}
		return then(tx, in.done)
	})
	if err == nil {
		s.AbortRuns(stopped)
	}
	return err
}

// then runs done, if any, in the write.
func then(tx Tx, done func(app.Tx) error) error {
	if done == nil {
		return nil
	}
	return done(tx)
}

// capped tells whether the contact had its hourly share of the assistant's answers, or is
// blocked.
func (r *Receiver) capped(tx Tx, orgID, contactID string, blocked bool) (string, error) {
	if blocked {
		return noRunBlocked, nil
	}
	if r.MaxAutoRepliesPerHour <= 0 {
		return "", nil
	}
	since := app.At(r.Service.Clock().Now().Add(-time.Hour))
	n, err := tx.EmailRepliesSince(orgID, contactID, since)
	if err != nil || n < r.MaxAutoRepliesPerHour {
		return "", err
	}
	return noRunCap, nil
}

// metadata is what the message records of its mail (OpenAPI: Message.metadata.email).
func (in inbound) metadata() map[string]any {
	domains := in.auth.DKIMDomains
	if domains == nil {
		domains = []string{}
	}
	md := map[string]any{"message_id": in.p.MessageID, "from": in.p.From.Address, "subject": in.p.Subject,
		"source": in.env.Source, "dkim": in.auth.DKIM, "dkim_domains": domains, "spf": in.auth.SPF,
		"dmarc": in.auth.DMARC, "dmarc_policy": in.auth.DMARCPolicy, "auto_reply": in.p.AutoReply,
		"no_run": in.noRun, "mail_from": in.env.MailFrom}
	return md
}

// bounce takes a DSN: every failed recipient that is one of the organization's email contacts
// joins its suppression list and the contact is unsubscribed (reason bounce), as a broadcast's
// bounce does; any other address is ignored. The DSN
// itself opens no chat and starts no run.
func (r *Receiver) bounce(ctx context.Context, d app.Deployment, dsn *DSN, done func(app.Tx) error) error {
	s := r.Service
	ignored := 0
	err := write(s, ctx, func(tx Tx) error {
		for _, addr := range dsn.Failed {
			// Only the organization's own contacts: a DSN is unauthenticated mail, and anyone
			// who can mail the integration could otherwise put any address on the list.
			ch, err := tx.EmailChannel(d.OrgID, addr)
			if app.IsNotFound(err) {
				ignored++
				continue
			}
			if err != nil {
				return err
			}
			sup := app.Suppression{ID: app.NewID("sup"), OrgID: d.OrgID, Email: addr, Reason: app.ReasonBounce,
				CreatedAt: app.At(s.Clock().Now())}
			if _, err := tx.AddSuppression(sup); err != nil {
				return err
			}
			if _, err := s.UnsubscribeContact(tx, d.OrgID, ch.ContactID, app.ReasonBounce); err != nil && !app.IsNotFound(err) {
				return err
			}
		}
		return then(tx, done)
	})
	if err != nil {
		return err
	}
	r.log().Info("email: delivery status notification", "integration", d.ID, "failed", len(dsn.Failed),
		"not_a_contact", ignored)
	return nil
}

func (r *Receiver) log() *slog.Logger {
	if r.Log == nil {
		return slog.Default()
	}
	return r.Log
}

// Recipient answers the integration an address reaches: an email integration's identity
// address or its +tag form, or the reply+<token> address of one of its chats. Any other
// address is not_found (SMTP 550: this server relays nothing).
func (r *Receiver) Recipient(ctx context.Context, addr string) (app.Deployment, error) {
	addr = strings.ToLower(strings.TrimSpace(addr))
	local, domain, ok := strings.Cut(addr, "@")
	if !ok || local == "" || domain == "" {
		return app.Deployment{}, app.NotFound("recipient")
	}
	var d app.Deployment
	err := read(r.Service, ctx, func(tx Tx) error {
		id, err := r.recipientID(tx, local, domain)
		if err != nil {
			return err
		}
		d, err = tx.FindDeployment(id)
		return err
	})
	if err == nil && d.IntegrationID != app.IntegrationEmail {
		return app.Deployment{}, app.NotFound("recipient")
	}
	return d, err
}

func (r *Receiver) recipientID(tx Tx, local, domain string) (string, error) {
	if token, ok := ReplyTokenOf(local + "@" + domain); ok {
		orgID, chatID, err := tx.EmailChatOfToken(tokenHash(token))
		if err != nil {
			return "", err
		}
		c, err := tx.GetChatRow(orgID, chatID)
		if err != nil {
			return "", err
		}
		if c.State == nil || c.State.AssistantIntegrationID == nil {
			return "", app.NotFound("recipient")
		}
		return *c.State.AssistantIntegrationID, nil
	}
	base, _, _ := strings.Cut(local, "+")
	ids, err := tx.EmailDeploymentsOf(base + "@" + domain)
	if err != nil {
		return "", err
	}
	if len(ids) == 0 {
		return "", app.NotFound("recipient")
	}
	return ids[0], nil
}
