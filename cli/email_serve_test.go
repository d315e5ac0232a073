package cli_test

import (
	"errors"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

var smtpAddrRE = regexp.MustCompile(`accepting mail over SMTP" addr=(\S+)`)

// TestServeEmailListener: serve opens the SMTP listener of email.inbound.addr, which refuses
// an address no integration has (550, never a relay); an SMTP client that stays connected does
// not hold the shutdown past http.shutdown_timeout; a taken SMTP port fails the start.
func TestServeEmailListener(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "app.db")
	s := startServe(t, dir, db, "APP_EMAIL_INBOUND_ADDR=127.0.0.1:0", "APP_HTTP_SHUTDOWN_TIMEOUT=1s")
	m := smtpAddrRE.FindStringSubmatch(s.log())
	if m == nil {
		t.Fatalf("no SMTP listener in the log:\n%s", s.log())
	}
	c, err := smtp.Dial(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Mail("ann@customer.test", nil); err != nil {
		t.Fatal(err)
	}
	var se *smtp.SMTPError
	if err := c.Rcpt("someone@elsewhere.test", nil); !errors.As(err, &se) || se.Code != 550 {
		t.Fatalf("RCPT to a foreign address: %v, want 550", err)
	}
	// c stays connected, idle, through the shutdown.
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := s.wait(); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, s.log())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("exited %v after SIGTERM, want within the 1s bound and a little:\n%s", took, s.log())
	}
	c.Close()

	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cmd := binCmd(t, dir, []string{"APP_EMAIL_INBOUND_ADDR=" + taken.Addr().String()}, "serve", "--addr", "127.0.0.1:0", "--db", db)
	out, err := cmd.CombinedOutput()
	if code := exitCode(err); code != 1 || !strings.Contains(string(out), "email: listen "+taken.Addr().String()) {
		t.Fatalf("serve on a taken SMTP port: exit %d\n%s", code, out)
	}
}
