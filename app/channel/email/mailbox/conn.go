package mailbox

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"wsapi/app"
)

// Dialer opens mailboxes. Dial is the SSRF-guarded dialer (safehttp.Dialer): the IMAP host
// is the tenant's, so it may not reach the server's own network unless allowed.
type Dialer struct {
	Dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	Roots   *x509.CertPool // nil: the system's
	Timeout time.Duration  // connect, TLS handshake and login; 0: 30 s
}

// conn is an open, logged-in connection with the mailbox selected.
type conn struct {
	c        *imapclient.Client
	selected *imap.SelectData
	idle     bool // the server offers IDLE
	stop     func() bool
}

// Verify is the set-up check of an imap email integration: it logs in and opens the mailbox,
// and answers why not. Other integrations pass.
func (dl Dialer) Verify(ctx context.Context, d app.Deployment) error {
	s, ok := SettingsOf(d)
	if !ok {
		return nil
	}
	c, err := dl.open(ctx, s, nil)
	if err != nil {
		return err
	}
	c.close()
	return nil
}

// open connects, secures, logs in and selects the mailbox. Every error names the step that
// failed in words a member can act on, never the password. newMail, when set, is called when
// the server announces a change of the mailbox's size (during IDLE: new mail).
func (dl Dialer) open(ctx context.Context, s Settings, newMail func()) (*conn, error) {
	timeout := dl.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	raw, err := dl.Dial(dctx, "tcp", s.addr())
	if err != nil {
		return nil, fmt.Errorf("cannot connect to the IMAP server %s: %w", s.addr(), err)
	}
	opts := &imapclient.Options{TLSConfig: &tls.Config{ServerName: s.Host, RootCAs: dl.Roots, MinVersion: tls.VersionTLS12},
		UnilateralDataHandler: &imapclient.UnilateralDataHandler{Mailbox: func(m *imapclient.UnilateralDataMailbox) {
			if m.NumMessages != nil && newMail != nil {
				newMail()
			}
		}}}
	// Commands wait without a context: closing the connection is what ends them, when ctx
	// ends (shutdown) or when the set-up takes too long.
	stopDial := context.AfterFunc(dctx, func() { raw.Close() })
	c, err := dl.secure(dctx, raw, s, opts)
	if err != nil {
		raw.Close()
		return nil, err
	}
	if err := c.Login(s.Username, s.Password).Wait(); err != nil {
		c.Close()
		return nil, fmt.Errorf("the IMAP server %s refused the login of %q: %w", s.Host, s.Username, reason(dctx, err))
	}
	sel, err := c.Select(s.Mailbox, &imap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("cannot open the mailbox %q on %s: %w", s.Mailbox, s.Host, reason(dctx, err))
	}
	if !stopDial() {
		c.Close()
		return nil, fmt.Errorf("the IMAP server %s did not answer in %s", s.addr(), timeout)
	}
	caps := c.Caps()
	return &conn{c: c, selected: sel, idle: caps.Has(imap.CapIdle) || caps.Has(imap.CapIMAP4rev2),
		stop: context.AfterFunc(ctx, func() { c.Close() })}, nil
}

// secure wraps the connection in TLS: implicit TLS, or STARTTLS (required: a password never
// crosses the network in clear).
func (dl Dialer) secure(ctx context.Context, raw net.Conn, s Settings, opts *imapclient.Options) (*imapclient.Client, error) {
	if !s.TLS {
		c, err := imapclient.NewStartTLS(raw, opts)
		if err != nil {
			return nil, fmt.Errorf("cannot start TLS (STARTTLS) with the IMAP server %s: %w", s.addr(), reason(ctx, err))
		}
		return c, nil
	}
	tc := tls.Client(raw, opts.TLSConfig)
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, fmt.Errorf("TLS with the IMAP server %s failed: %w", s.addr(), reason(ctx, err))
	}
	c := imapclient.New(tc, opts)
	if err := c.WaitGreeting(); err != nil {
		c.Close()
		return nil, fmt.Errorf("the IMAP server %s did not greet: %w", s.addr(), reason(ctx, err))
	}
	return c, nil
}

// reason is err, or the timeout when the connection was closed because time ran out.
func reason(ctx context.Context, err error) error {
	if ctx.Err() != nil && !errors.As(err, new(*imap.Error)) {
		return fmt.Errorf("no answer in time (%w)", ctx.Err())
	}
	return err
}

// close logs out (bounded by the client's own timeouts) and closes.
func (c *conn) close() {
	c.stop()
	c.c.Logout().Wait()
	c.c.Close()
}
