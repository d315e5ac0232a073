package email

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/emersion/go-smtp"

	"wsapi/app"
	queue "wsapi/app/channel/inbound"
)

// ListenerConfig is email.inbound (docs/channels.md, "Email": limits).
type ListenerConfig struct {
	Addr     string
	Hostname string // announced in the greeting; default the host of Addr
	// TLS, when set, is offered by STARTTLS.
	TLS      *tls.Config
	MaxBytes int64 // refused at MAIL (SIZE=) or DATA with 552; 0: 25 MiB
	// MaxRecipients per mail (default 20); MaxConnectionsPerIP open at once from one address
	// (default 10); MessagesPerMinutePerIP mails accepted from one address a minute (default 60).
	MaxRecipients          int
	MaxConnectionsPerIP    int
	MessagesPerMinutePerIP int
	Timeout                time.Duration // per command and for DATA; default 60 s
	// SpoolDir takes the data of a mail over 1 MiB while it arrives (spool.go); "": the
	// system's temporary directory. serve uses the database's directory.
	SpoolDir string
}

// Listener is the inbound SMTP server of serve: it accepts mail only for the addresses of
// email integrations (their +tag forms, and reply+<token> addresses of their chats), never
// relays, and keeps each mail in the spool for the inbound worker, which hands it to the
// Receiver (queue.go): the 250 comes once the mail is stored, before it is parsed and
// threaded.
type Listener struct {
	Receiver *Receiver
	// Spool keeps the accepted mail (up to spoolAt) until the inbound worker's relay queues
	// it in the store: a file with a writer of its own, so the 250 never waits for the
	// store's writer, busy taking in the mails before (docs/decisions/email-queue.md).
	Spool  queue.Spool
	Config ListenerConfig
	Log    *slog.Logger

	srv    *smtp.Server
	ln     *limitedListener
	limits *ipLimits
}

// Listen binds the address (serve fails at start when it is taken).
func (l *Listener) Listen() error {
	c := &l.Config
	if l.Spool == nil {
		return errors.New("email: the listener has no spool")
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.MaxRecipients <= 0 {
		c.MaxRecipients = 20
	}
	if c.Timeout <= 0 {
		c.Timeout = time.Minute
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("email: listen %s: %w", c.Addr, err)
	}
	sweepSpool(c.SpoolDir)
	l.limits = newIPLimits(c.MaxConnectionsPerIP, c.MessagesPerMinutePerIP, l.Receiver.Service.Clock())
	l.ln = &limitedListener{Listener: ln, limits: l.limits}
	s := smtp.NewServer(backend{l})
	s.Domain = c.Hostname
	if s.Domain == "" {
		s.Domain, _, _ = net.SplitHostPort(c.Addr)
	}
	s.MaxMessageBytes, s.MaxRecipients = c.MaxBytes, c.MaxRecipients
	s.ReadTimeout, s.WriteTimeout = c.Timeout, c.Timeout
	s.TLSConfig = c.TLS
	s.EnableSMTPUTF8 = true
	s.ErrorLog = slogLogger{l.log()}
	l.srv = s
	return nil
}

// Addr is the bound address (tests listen on port 0).
func (l *Listener) Addr() string {
	if l.ln == nil {
		return ""
	}
	return l.ln.Addr().String()
}

// Serve answers connections until Shutdown.
func (l *Listener) Serve() error {
	err := l.srv.Serve(l.ln)
	if errors.Is(err, smtp.ErrServerClosed) || errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting, lets the sessions under way finish until ctx ends, then closes
// the rest (a mail not acknowledged is sent again by its relay).
func (l *Listener) Shutdown(ctx context.Context) error {
	if l.srv == nil {
		return nil
	}
	err := l.srv.Shutdown(ctx)
	if err != nil {
		l.ln.closeAll() // go-smtp's Close does nothing once Shutdown began
	}
	return err
}

func (l *Listener) log() *slog.Logger {
	if l.Log == nil {
		return slog.Default()
	}
	return l.Log
}

type backend struct{ l *Listener }

func (b backend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	ip := remoteIP(c.Conn().RemoteAddr())
	return &session{l: b.l, ip: ip, helo: c.Hostname(), deployments: map[string]app.Deployment{}}, nil
}

// session is one SMTP transaction's envelope.
type session struct {
	l           *Listener
	ip          net.IP
	helo        string
	from        string
	rcpts       []string
	deployments map[string]app.Deployment
	order       []string
}

func (s *session) Reset() {
	s.from, s.rcpts, s.order = "", nil, nil
	s.deployments = map[string]app.Deployment{}
}

func (s *session) Logout() error { return nil }

var (
	errRateLimited = &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 7, 0},
		Message: "too many messages from your address; try again later"}
	errNoSuchUser = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1},
		Message: "no such mailbox here (this server relays nothing)"}
	errTooBig = &smtp.SMTPError{Code: 552, EnhancedCode: smtp.EnhancedCode{5, 3, 4},
		Message: "message exceeds the size limit"}
	errTemporary = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0},
		Message: "temporary failure; try again later"}
)

func (s *session) Mail(from string, opts *smtp.MailOptions) error {
	if opts != nil && opts.Size > s.l.Config.MaxBytes {
		return errTooBig
	}
	if !s.l.limits.allowMessage(s.ip) {
		return errRateLimited
	}
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.l.Config.Timeout)
	defer cancel()
	var d app.Deployment
	err := app.Safely(func() (err error) {
		d, err = s.l.Receiver.Recipient(ctx, to)
		return err
	})
	if app.IsNotFound(err) {
		return errNoSuchUser
	}
	if err != nil {
		app.LogFailure(s.l.log(), "email: recipient lookup failed", err)
		return errTemporary
	}
	s.rcpts = append(s.rcpts, to)
	if _, ok := s.deployments[d.ID]; !ok {
		s.order = append(s.order, d.ID)
	}
	s.deployments[d.ID] = d
	return nil
}

// Data keeps the mail in the spool once for every integration it was addressed to, in one
// commit, and answers 250 only once that commit is done. A mail past spoolAt is queued in the
// store instead (inbound.Queue). What the mail itself makes unacceptable
// (no header, no sender) is refused first.
func (s *session) Data(r io.Reader) error {
	rc := s.l.Receiver
	env := Envelope{MailFrom: s.from, RcptTo: s.rcpts, RemoteIP: s.ip, HELO: s.helo, Source: "smtp", seq: rc.order.next()}
	line := envelopeLine(env)
	body, err := readData(line, r, s.l.Config.SpoolDir)
	if errors.Is(err, smtp.ErrDataTooLarge) {
		return errTooBig
	}
	if err != nil {
		return err
	}
	from, err := Acceptable(body[len(line):])
	if err != nil {
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: err.Error()}
	}
	ds := make([]app.Deployment, 0, len(s.order))
	for _, id := range s.order {
		ds = append(ds, s.deployments[id])
		if from != "" {
			rc.order.note(orderKey(id, from), env.seq)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.l.Config.Timeout)
	defer cancel()
	keep := func() error { return queue.Keep(ctx, rc.Service, s.l.Spool, body, ds...) }
	if len(body) > spoolAt {
		keep = func() error { return queue.Queue(ctx, rc.Service, body, ds...) }
	}
	if err := app.Safely(keep); err != nil {
		for _, id := range s.order {
			rc.order.forget(orderKey(id, from), env.seq)
		}
		app.LogFailure(s.l.log(), "email: keeping an inbound mail failed", err, "integrations", s.order)
		return errTemporary
	}
	releaseBig(len(body))
	return nil
}

func remoteIP(a net.Addr) net.IP {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.IP
	}
	host, _, _ := net.SplitHostPort(a.String())
	return net.ParseIP(host)
}

// slogLogger carries go-smtp's own log lines (handshake errors, panics) into the server log.
type slogLogger struct{ log *slog.Logger }

func (s slogLogger) Printf(format string, v ...any) {
	s.log.Warn("email: smtp: " + strings.TrimSpace(fmt.Sprintf(format, v...)))
}
func (s slogLogger) Println(v ...any) {
	s.log.Warn("email: smtp: " + strings.TrimSpace(fmt.Sprintln(v...)))
}
