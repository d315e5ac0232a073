package email_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"wsapi/cli"
)

// smtpCode answers the SMTP code of a refusal (0 when none).
func smtpCode(err error) int {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		return se.Code
	}
	return 0
}

// TestEmailListenerRefuses: the listener is never a relay (550 for any other address), takes
// +tag forms, refuses a mail over email.inbound.max_bytes with 552 (announced by SIZE or
// found in DATA), offers STARTTLS with the configured certificate, and holds each address to
// its connection and message budgets (421).
func TestEmailListenerRefuses(t *testing.T) {
	t.Parallel()
	certFile, keyFile, roots := testCert(t)
	m := newMailEnv(t, func(c *cli.Config) {
		c.Email.Inbound.MaxBytes = 64 << 10
		c.Email.Inbound.TLSCert, c.Email.Inbound.TLSKey = certFile, keyFile
		c.Email.Inbound.MaxConnectionsPerIP = 3
		c.Email.Inbound.MessagesPerMinutePerIP = 8
	})
	ok := &letter{from: "ann@customer.test", to: helpAddr, subject: "hi", body: "Hello"}
	for _, to := range []string{"nobody@support.test", "help@elsewhere.test", "reply+notatoken@support.test", "postmaster@customer.test"} {
		if err := m.send(t, "ann@customer.test", []string{to}, ok.compose()); smtpCode(err) != 550 {
			t.Fatalf("RCPT %s: %v, want 550", to, err)
		}
	}
	m.mustSend(t, "ann@customer.test", []string{"Help+Orders@Support.test"}, m.signed(t, ok)) // 2 mails so far
	big := &letter{from: "ann@customer.test", to: helpAddr, subject: "big", body: strings.Repeat(strings.Repeat("x", 76)+"\n", 1000)}
	if err := m.send(t, "ann@customer.test", []string{helpAddr}, big.compose()); smtpCode(err) != 552 {
		t.Fatalf("oversize: %v, want 552", err)
	}
	// Announced with SIZE= at MAIL FROM, refused before any data.
	c := m.dial(t)
	if err := c.Mail("ann@customer.test", &smtp.MailOptions{Size: 1 << 20}); smtpCode(err) != 552 {
		t.Fatalf("MAIL SIZE=1MiB: %v, want 552", err)
	}
	c.Close()
	// STARTTLS with the configured certificate: a mail over TLS is taken.
	var tc *smtp.Client
	var err error
	m.e.Eventually(5*time.Second, "a connection slot", func() bool {
		tc, err = smtp.DialStartTLS(m.smtpAddr(), &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"})
		return err == nil || !strings.Contains(err.Error(), "too many connections")
	})
	if err != nil {
		t.Fatalf("starttls: %v", err)
	}
	if err := tc.SendMail("ann@customer.test", []string{helpAddr}, bytes.NewReader(m.signed(t, &letter{from: "ann@customer.test",
		to: helpAddr, subject: "over tls", body: "Secret"}))); err != nil {
		t.Fatalf("send over tls: %v", err)
	}
	tc.Close()
	m.settle(t)
	if n := len(m.chats(t)); n != 2 {
		t.Fatalf("%d chats after two mails", n)
	}
	// Messages: 8 a minute, counted at MAIL (the refused recipients and the big mail too).
	var refused error
	for i := 0; i < 6 && refused == nil; i++ {
		refused = m.send(t, "ann@customer.test", []string{helpAddr}, m.signed(t, &letter{from: "ann@customer.test", to: helpAddr,
			subject: "again", body: "Again"}))
	}
	if smtpCode(refused) != 421 {
		t.Fatalf("past the rate: %v, want 421", refused)
	}
	// Connections: three open at once from 127.0.0.1 (once the ones closed above are
	// released), the fourth is told 421 at once.
	var open []net.Conn
	m.e.Eventually(5*time.Second, "three connections at once", func() bool {
		for _, c := range open {
			c.Close()
		}
		open = nil
		for i := 0; i < 3; i++ {
			c, err := net.Dial("tcp", m.smtpAddr())
			if err != nil {
				t.Fatal(err)
			}
			open = append(open, c)
			if !strings.HasPrefix(greeting(t, c), "220 ") {
				return false
			}
		}
		return true
	})
	conn, err := net.Dial("tcp", m.smtpAddr())
	if err != nil {
		t.Fatal(err)
	}
	if g := greeting(t, conn); !strings.HasPrefix(g, "421 ") {
		t.Fatalf("fourth connection: %q", g)
	}
	conn.Close()
	for _, c := range open {
		c.Close()
	}
}

// greeting reads the server's first line.
func greeting(t *testing.T, c net.Conn) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 128)
	n, _ := c.Read(buf)
	return string(buf[:n])
}

// testCert writes httptest's certificate and key as PEM files and answers a pool trusting it.
func testCert(t *testing.T) (certFile, keyFile string, roots *x509.CertPool) {
	t.Helper()
	ts := httptest.NewUnstartedServer(http.NotFoundHandler())
	ts.StartTLS()
	defer ts.Close()
	cert := ts.TLS.Certificates[0]
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "smtp.crt"), filepath.Join(dir, "smtp.key")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}), 0o600)
	roots = x509.NewCertPool()
	roots.AddCert(ts.Certificate())
	return certFile, keyFile, roots
}
