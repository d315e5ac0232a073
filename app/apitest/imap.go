package apitest

import (
	"bytes"
	"crypto/subtle"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
)

// IMAPServer is a real IMAP server on loopback (go-imap's in-memory one) holding one
// account's mailboxes, with implicit TLS under the certificate the test CA file trusts (the
// receivers'). Its password can change, and it can stop and start again on its port, so
// tests show a mailbox failing and recovering.
type IMAPServer struct {
	Host     string
	Port     int
	Username string

	mu       sync.Mutex
	password string
	initial  string // the memory server's own, which sessions log in with
	mem      *imapmemserver.Server
	user     *imapmemserver.User
	srv      *imapserver.Server
	tls      *tls.Config
	caps     imap.CapSet
	idle     bool
	starttls bool // plain listener offering STARTTLS instead of implicit TLS
}

// NewIMAPServer starts a server with the account username/password and an INBOX. idle tells
// whether it offers IDLE.
func NewIMAPServer(t testing.TB, username, password string, idle bool) *IMAPServer {
	t.Helper()
	ts := httptest.NewUnstartedServer(http.NotFoundHandler())
	ts.StartTLS() // for its certificate, the one testCAFile trusts
	cert := ts.TLS.Certificates
	ts.Close()
	s := &IMAPServer{Host: "127.0.0.1", Username: username, password: password, initial: password, mem: imapmemserver.New(),
		user: imapmemserver.NewUser(username, password), tls: &tls.Config{Certificates: cert},
		caps: imap.CapSet{imap.CapIMAP4rev1: {}}, idle: idle}
	s.mem.AddUser(s.user)
	if err := s.user.Create("INBOX", nil); err != nil {
		t.Fatalf("apitest: imap: %v", err)
	}
	s.Start(t)
	t.Cleanup(s.Stop)
	return s
}

// Start listens (again) on the server's port.
func (s *IMAPServer) Start(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	addr := net.JoinHostPort(s.Host, strconv.Itoa(s.Port))
	var ln net.Listener
	var err error
	for deadline := time.Now().Add(5 * time.Second); ; {
		if s.starttls {
			ln, err = net.Listen("tcp", addr)
		} else {
			ln, err = tls.Listen("tcp", addr, s.tls)
		}
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // the old listener's port is being released
	}
	if err != nil {
		t.Fatalf("apitest: imap listen: %v", err)
	}
	s.Port = ln.Addr().(*net.TCPAddr).Port
	if !s.idle {
		ln = noIdleListener{ln}
	}
	var starttls *tls.Config
	if s.starttls {
		starttls = s.tls
	}
	s.srv = imapserver.New(&imapserver.Options{Caps: s.caps, Logger: discardLogger{}, TLSConfig: starttls,
		InsecureAuth: !s.idle, // TLS under the wrapper
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return &passwordSession{Session: s.mem.NewSession(), server: s}, nil, nil
		}})
	go s.srv.Serve(ln)
}

// Stop closes the listener and every connection: the mailbox cannot be reached.
func (s *IMAPServer) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		s.srv.Close()
		s.srv = nil
	}
}

// UseStartTLS serves again on the same port in clear, offering STARTTLS (port 143 style).
func (s *IMAPServer) UseStartTLS(t testing.TB) {
	t.Helper()
	s.Stop()
	s.mu.Lock()
	s.starttls = true
	s.mu.Unlock()
	s.Start(t)
}

// SetPassword changes the account's password (a member rotated it at the provider).
func (s *IMAPServer) SetPassword(p string) {
	s.mu.Lock()
	s.password = p
	s.mu.Unlock()
}

// Append delivers a mail to a mailbox, unread.
func (s *IMAPServer) Append(t testing.TB, mailbox string, raw []byte) imap.UID {
	t.Helper()
	d, err := s.user.Append(mailbox, literal{bytes.NewReader(raw)}, &imap.AppendOptions{})
	if err != nil {
		t.Fatalf("apitest: imap append: %v", err)
	}
	return d.UID
}

// Recreate deletes a mailbox and makes it again with the same mails: its UIDVALIDITY changes.
func (s *IMAPServer) Recreate(t testing.TB, mailbox string, mails [][]byte) {
	t.Helper()
	if err := s.user.Delete(mailbox); err != nil {
		t.Fatalf("apitest: imap delete: %v", err)
	}
	if err := s.user.Create(mailbox, nil); err != nil {
		t.Fatalf("apitest: imap create: %v", err)
	}
	for _, m := range mails {
		s.Append(t, mailbox, m)
	}
}

// Config is an email integration's config polling mailbox on this server.
func (s *IMAPServer) Config(identityID, mailbox string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return map[string]any{"identity_id": identityID, "inbound": "imap", "imap": map[string]any{
		"host": s.Host, "port": s.Port, "tls": !s.starttls, "username": s.Username, "mailbox": mailbox}}
}

// passwordSession checks the server's current password, then logs in to the memory server
// with the one it was made with.
type passwordSession struct {
	imapserver.Session
	server *IMAPServer
}

func (p *passwordSession) Login(username, password string) error {
	p.server.mu.Lock()
	want := p.server.password
	p.server.mu.Unlock()
	if subtle.ConstantTimeCompare([]byte(password), []byte(want)) != 1 {
		return imapserver.ErrAuthFailed
	}
	return p.Session.Login(username, p.server.initial)
}

// noIdleListener hides IDLE from the capabilities the server announces (go-imap's server
// always offers it), as servers without IDLE do.
type noIdleListener struct{ net.Listener }

func (l noIdleListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return noIdleConn{c}, nil
}

type noIdleConn struct{ net.Conn }

func (c noIdleConn) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte("CAPABILITY")) {
		if _, err := c.Conn.Write(bytes.ReplaceAll(b, []byte(" IDLE"), nil)); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return c.Conn.Write(b)
}

type literal struct{ *bytes.Reader }

func (l literal) Size() int64 { return l.Reader.Size() }

type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}
