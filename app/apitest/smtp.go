package apitest

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Mail is one message an SMTP sink accepted.
type Mail struct {
	From string
	To   []string
	Data []byte
}

// SMTPSink is a real local SMTP server offering STARTTLS with httptest's certificate (which
// the harness trusts through email.ca_file). It keeps every message.
type SMTPSink struct {
	Addr  string
	mails *arrivals[Mail]
	// Reject, when set, refuses RCPT TO for an address with a permanent error.
	Reject func(to string) bool
	// Delay, when set, holds each message to an address this long before accepting it (a
	// slow relay). Set it before the first message.
	Delay func(to string) time.Duration
}

// NewSMTPSink starts a sink on 127.0.0.1.
func NewSMTPSink(t testing.TB) *SMTPSink {
	t.Helper()
	sink := &SMTPSink{mails: newArrivals[Mail](1 << 17)}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &sinkSession{sink: sink}, nil }))
	srv.Domain = "sink.test"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	ts := httptest.NewUnstartedServer(http.NotFoundHandler())
	ts.StartTLS()
	srv.TLSConfig = &tls.Config{Certificates: ts.TLS.Certificates}
	ts.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("apitest: smtp listen: %v", err)
	}
	sink.Addr = ln.Addr().String()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return sink
}

// URL is the email.smtp_url of the sink.
func (s *SMTPSink) URL() string { return "smtp://" + s.Addr }

// Mails is a copy of what arrived so far.
func (s *SMTPSink) Mails() []Mail { return s.mails.all() }

// Wait blocks until n messages have arrived, failing the test after timeout.
func (s *SMTPSink) Wait(t testing.TB, n int, timeout time.Duration) []Mail {
	t.Helper()
	return s.mails.wait(t, n, timeout, "smtp sink", "message(s)")
}

type sinkSession struct {
	sink *SMTPSink
	mail Mail
}

func (s *sinkSession) Reset()        { s.mail = Mail{} }
func (s *sinkSession) Logout() error { return nil }
func (s *sinkSession) Mail(from string, _ *smtp.MailOptions) error {
	s.mail.From = from
	return nil
}

func (s *sinkSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if s.sink.Reject != nil && s.sink.Reject(to) {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
	}
	s.mail.To = append(s.mail.To, to)
	return nil
}

func (s *sinkSession) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.mail.Data = data
	if s.sink.Delay != nil && len(s.mail.To) > 0 {
		time.Sleep(s.sink.Delay(s.mail.To[0]))
	}
	s.sink.mails.add(s.mail)
	return nil
}
