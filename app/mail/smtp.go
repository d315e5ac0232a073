package mail

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"wsapi/app"
)

// Mailer sends through one relay, keeping up to a pool of idle connections for reuse.
type Mailer struct {
	addr      string
	host      string
	implicit  bool // smtps://
	tlsConfig *tls.Config
	auth      func() sasl.Client
	clock     app.Clock
	idle      chan *smtp.Client
}

// New parses email.smtp_url (smtp://user:pass@host:587 with STARTTLS, required unless the host
// is loopback, or smtps://... with implicit TLS) and email.ca_file.
func New(rawURL, caFile string, poolSize int, clock app.Clock) (*Mailer, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" {
		return nil, fmt.Errorf("mail: email.smtp_url must be smtp://[user:pass@]host:port (STARTTLS) or smtps://[user:pass@]host:port (TLS)")
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"smtp": "587", "smtps": "465"}[u.Scheme]
	}
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool()
	}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("mail: email.ca_file: %w", err)
		}
		roots.AppendCertsFromPEM(pem)
	}
	m := &Mailer{addr: net.JoinHostPort(u.Hostname(), port), host: u.Hostname(), implicit: u.Scheme == "smtps",
		tlsConfig: &tls.Config{ServerName: u.Hostname(), RootCAs: roots, MinVersion: tls.VersionTLS12},
		clock:     clock, idle: make(chan *smtp.Client, max(1, poolSize))}
	if u.User != nil {
		user := u.User.Username()
		pass, _ := u.User.Password()
		m.auth = func() sasl.Client { return sasl.NewPlainClient("", user, pass) }
	}
	return m, nil
}

func (m *Mailer) loopback() bool {
	if m.host == "localhost" {
		return true
	}
	ip := net.ParseIP(m.host)
	return ip != nil && ip.IsLoopback()
}

func (m *Mailer) dial() (*smtp.Client, error) {
	var c *smtp.Client
	var err error
	switch {
	case m.implicit:
		c, err = smtp.DialTLS(m.addr, m.tlsConfig)
	default:
		c, err = smtp.DialStartTLS(m.addr, m.tlsConfig)
		if err != nil && m.loopback() && strings.Contains(err.Error(), "doesn't support STARTTLS") {
			c, err = smtp.Dial(m.addr) // a local relay without TLS; nothing leaves the machine
		}
	}
	if err != nil {
		return nil, fmt.Errorf("mail: connect %s: %w", m.addr, err)
	}
	c.CommandTimeout, c.SubmissionTimeout = 30*time.Second, 2*time.Minute
	if m.auth != nil {
		if err := c.Auth(m.auth()); err != nil {
			c.Close()
			return nil, fmt.Errorf("mail: auth: %w", err)
		}
	}
	return c, nil
}

// Send composes, signs and sends one message.
func (m *Mailer) Send(ctx context.Context, e app.OutboundEmail) error {
	raw, err := Compose(e, m.clock.Now())
	if err != nil {
		return err
	}
	return m.SendRaw(ctx, e.FromEmail, []string{e.To}, raw)
}

// SendRaw sends a message composed and signed already (the email channel's replies). A
// refusal of the relay wraps its *smtp.SMTPError, whose code tells a permanent one (5xx).
func (m *Mailer) SendRaw(_ context.Context, from string, to []string, raw []byte) error {
	c, err := m.client()
	if err != nil {
		return err
	}
	if err := c.SendMail(from, to, bytes.NewReader(raw)); err != nil {
		c.Close()
		return fmt.Errorf("mail: send to %s: %w", strings.Join(to, ", "), err)
	}
	select {
	case m.idle <- c:
	default:
		c.Quit()
	}
	return nil
}

// client reuses an idle connection that still answers, or dials a new one.
func (m *Mailer) client() (*smtp.Client, error) {
	for {
		select {
		case c := <-m.idle:
			if c.Reset() == nil {
				return c, nil
			}
			c.Close()
		default:
			return m.dial()
		}
	}
}

// Close ends the idle connections.
func (m *Mailer) Close() {
	for {
		select {
		case c := <-m.idle:
			c.Quit()
		default:
			return
		}
	}
}
