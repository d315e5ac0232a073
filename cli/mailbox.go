package cli

import (
	"context"
	"errors"
	"io"
	"time"

	"wsapi/app"
	"wsapi/app/channel"
	"wsapi/app/channel/email"
	"wsapi/app/channel/email/mailbox"
	"wsapi/app/safehttp"
	"wsapi/sqlite"
)

func init() {
	defaults["email.imap_poll"] = "1m"
	defaults["email.imap_max_connections"] = 32
	defaults["email.imap_timeout"] = "30s"
}

// validateMailbox checks the IMAP poller's keys: email.imap_poll (how often each mailbox is
// polled; IDLE brings new mail sooner), email.imap_max_connections (mailboxes open at once,
// IDLE ones included) and email.imap_timeout (connect, TLS and login).
func (c EmailConfig) validateMailbox() error {
	if c.IMAPPoll < time.Second || c.IMAPMaxConnections < 1 || c.IMAPTimeout <= 0 {
		return errors.New("config: email.imap_poll must be at least 1s, email.imap_max_connections at least 1, " +
			"email.imap_timeout positive")
	}
	return nil
}

// wireMailbox makes the IMAP poller of email integrations with inbound imap, importing
// through the email channel's receiver (wireEmail runs first), and adds its login check to
// the email integrations' set-up check (email.Connector.MailboxCheck). The tenant's IMAP host is reached
// through the guarded dialer, under the rules of every tenant target
// (webhooks.allow_private_targets, webhooks.ca_file).
func (rt *Runtime) wireMailbox(cfg Config, opt Options) error {
	mc := cfg.Email
	dial, roots, err := safehttp.Dialer(safehttp.Options{Timeout: mc.IMAPTimeout, Resolver: opt.Resolver,
		AllowPrivate: cfg.Webhooks.AllowPrivateTargets, CAFile: cfg.Webhooks.CAFile})
	if err != nil {
		return err
	}
	dialer := mailbox.Dialer{Dial: dial, Roots: roots, Timeout: mc.IMAPTimeout}
	rt.Mailbox = &mailbox.Poller{Service: rt.Service, Store: mailboxStore{rt.DB, rt.Service.Clock()}, Dialer: dialer,
		Import: imapImporter(rt.Email), Interval: mc.IMAPPoll, MaxConns: mc.IMAPMaxConnections,
		MaxBytes: cfg.Email.Inbound.MaxBytes, Log: rt.Log}
	if c, ok := rt.channels.connectors[app.IntegrationEmail].(*email.Connector); ok {
		c.MailboxCheck = dialer.Verify
	}
	return nil
}

// imapImporter hands a fetched mail to the email channel's receiver. A mail it can never
// take (too big, no sender, not a mail) is Permanent: the poller skips it.
func imapImporter(r *email.Receiver) mailbox.Importer {
	return func(ctx context.Context, d app.Deployment, raw io.Reader) error {
		err := r.Receive(ctx, d, raw, email.Envelope{Source: "imap"})
		if errors.Is(err, email.ErrTooBig) || errors.Is(err, email.ErrNoSender) || errors.Is(err, email.ErrNoHeader) {
			return channel.Permanent{Err: err}
		}
		return err
	}
}

// mailboxStore keeps the poller's cursors in the database.
type mailboxStore struct {
	db    *sqlite.DB
	clock app.Clock
}

func (s mailboxStore) ImapDeployments(ctx context.Context) ([]string, []string, error) {
	return s.db.ImapDeployments(ctx)
}

func (s mailboxStore) Cursor(ctx context.Context, asiID string) (mailbox.Cursor, bool, error) {
	c, ok, err := s.db.GetMailboxCursor(ctx, asiID)
	return mailbox.Cursor(c), ok, err
}

func (s mailboxStore) SaveCursor(ctx context.Context, asiID, orgID string, c mailbox.Cursor) error {
	return s.db.SaveMailboxCursor(ctx, asiID, orgID, sqlite.MailboxCursor(c), s.clock.Now())
}
