package email_test

import (
	"bytes"
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net/mail"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-msgauth/dkim"
	"github.com/emersion/go-smtp"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// mailEnv is a server whose email integration (help@support.test, a verified domain) listens
// on a real SMTP port, sends its replies to a local sink, and checks mail against a local DNS
// server that publishes customer.test's DKIM key, SPF (127.0.0.1) and DMARC (p=reject).
type mailEnv struct {
	e         *apitest.Env
	dns       *apitest.DNSServer
	sink      *apitest.SMTPSink
	asst, asi string
	identity  app.EmailIdentity
	key       *rsa.PrivateKey // customer.test's DKIM key
}

const helpAddr = "help@support.test"

func newMailEnv(t *testing.T, configure ...func(*cli.Config)) *mailEnv {
	t.Helper()
	dnsSrv := apitest.NewDNSServer(t)
	sink := apitest.NewSMTPSink(t)
	e := apitest.New(t, append([]func(*cli.Config){func(c *cli.Config) {
		c.DNS.Resolver = dnsSrv.Addr
		c.Email.SMTPURL = sink.URL()
		c.Email.Inbound.Addr = "127.0.0.1:0"
		c.HTTP.RateLimitPerMinute = 1 << 20
	}}, configure...)...)
	m := &mailEnv{e: e, dns: dnsSrv, sink: sink}
	var domain app.Domain
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "support.test"}).Expect(201).JSON(&domain)
	for _, rec := range append([]app.DNSRecord{domain.VerificationRecord}, domain.DKIMTokens...) {
		dnsSrv.SetTXT(rec.Name, rec.Value)
	}
	e.Do("POST", "/orgs/c/domains/"+domain.ID+"/verify", e.AdminKey, nil).Expect(200)
	e.Do("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": helpAddr, "name": "Support"}).
		Expect(201).JSON(&m.identity)
	var a map[string]any
	e.Do("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": "Mail Helper"}).Expect(201).JSON(&a)
	m.asst = a["id"].(string)
	var k map[string]any
	e.Do("POST", "/orgs/c/assistants/"+m.asst+"/knowledge/contents", e.AdminKey, map[string]any{"title": "Hours",
		"content": map[string]any{"type": "TEXT", "text": "Our opening hours are nine to five, Monday to Friday."}}).Expect(201).JSON(&k)
	e.Eventually(20*time.Second, "knowledge processed", func() bool {
		var got map[string]any
		e.Do("GET", "/orgs/c/assistants/"+m.asst+"/knowledge/contents/"+k["id"].(string), e.AdminKey, nil).Expect(200).JSON(&got)
		return got["status"] == "PROCESSED"
	})
	var d map[string]any
	e.Do("POST", "/orgs/c/assistants/"+m.asst+"/integrations", e.AdminKey, map[string]any{"integration_id": "email",
		"name": "Support mail", "config": map[string]any{"identity_id": m.identity.ID, "inbound": "smtp"}}).Expect(201).JSON(&d)
	if d["status"] != "ACTIVE" {
		t.Fatalf("email integration %v", d)
	}
	m.asi = d["id"].(string)
	key, err := apitest.DKIMKeys()()
	if err != nil {
		t.Fatal(err)
	}
	m.key = key
	pub, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	dnsSrv.SetTXT("sel._domainkey.customer.test", "v=DKIM1; k=rsa; p="+base64.StdEncoding.EncodeToString(pub))
	dnsSrv.SetTXT("customer.test", "v=spf1 ip4:127.0.0.1 -all")
	dnsSrv.SetTXT("_dmarc.customer.test", "v=DMARC1; p=reject")
	dnsSrv.SetTXT("_dmarc.bank.test", "v=DMARC1; p=reject")
	return m
}

// smtpAddr is the listener's address, as serve opened it.
func (m *mailEnv) smtpAddr() string { return m.e.Runtime.SMTP.Addr() }

var mailSeq atomic.Int64

// letter is a mail to compose.
type letter struct {
	from, to, subject, body string
	id                      string // Message-ID without brackets; made when empty
	headers                 []string
	raw                     string // a whole body with its own Content-Type header (multipart)
}

// compose writes the letter as RFC 5322 with CRLF line ends.
func (l *letter) compose() []byte {
	if l.id == "" {
		l.id = fmt.Sprintf("m%d.%d@customer.test", time.Now().UnixNano(), mailSeq.Add(1))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: Mon, 05 Jan 2026 10:00:00 +0000\r\nMessage-ID: <%s>\r\nMIME-Version: 1.0\r\n",
		l.from, l.to, l.subject, l.id)
	for _, h := range l.headers {
		b.WriteString(h + "\r\n")
	}
	if l.raw != "" {
		b.WriteString(strings.ReplaceAll(l.raw, "\n", "\r\n"))
		return []byte(b.String())
	}
	b.WriteString("Content-Type: text/plain; charset=utf-8\r\n\r\n")
	b.WriteString(strings.ReplaceAll(l.body, "\n", "\r\n") + "\r\n")
	return []byte(b.String())
}

// signed is the letter signed with customer.test's DKIM key.
func (m *mailEnv) signed(t *testing.T, l *letter) []byte {
	t.Helper()
	var out bytes.Buffer
	err := dkim.Sign(&out, bytes.NewReader(l.compose()), &dkim.SignOptions{Domain: "customer.test", Selector: "sel", Signer: m.key,
		HeaderKeys: []string{"From", "To", "Subject", "Date", "Message-ID", "In-Reply-To", "References"}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// send delivers raw over SMTP from 127.0.0.1 and answers the server's refusal, if any.
func (m *mailEnv) send(t *testing.T, mailFrom string, to []string, raw []byte) error {
	t.Helper()
	c := m.dial(t)
	defer c.Close()
	if err := c.Hello("mx.customer.test"); err != nil {
		t.Fatal(err)
	}
	err := c.SendMail(mailFrom, to, bytes.NewReader(raw))
	if err == nil {
		m.settle(t)
	}
	return err
}

// settle waits until the inbound worker took in every mail queued: the listener answers 250
// once a mail is queued, before it is parsed and threaded.
func (m *mailEnv) settle(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := m.e.Runtime.Inbound.WaitIdle(ctx); err != nil {
		t.Fatalf("inbound worker: %v", err)
	}
}

// mustSend is send that must be accepted.
func (m *mailEnv) mustSend(t *testing.T, mailFrom string, to []string, raw []byte) {
	t.Helper()
	if err := m.send(t, mailFrom, to, raw); err != nil {
		t.Fatalf("send: %v", err)
	}
}

// chats are the integration's chats, newest first.
func (m *mailEnv) chats(t *testing.T) []map[string]any {
	t.Helper()
	return m.e.Do("GET", "/orgs/c/inbox?assistant_integration_id="+m.asi, m.e.AdminKey, nil).Expect(200).List()
}

// messages are a chat's messages, oldest first.
func (m *mailEnv) messages(t *testing.T, chatID string) []map[string]any {
	t.Helper()
	return m.e.Do("GET", "/orgs/c/chats/"+chatID+"/messages?take=100", m.e.AdminKey, nil).Expect(200).List()
}

// waitMessages waits until a chat holds n messages.
func (m *mailEnv) waitMessages(t *testing.T, chatID string, n int) []map[string]any {
	t.Helper()
	var ms []map[string]any
	m.e.Eventually(10*time.Second, fmt.Sprintf("%d messages in %s", n, chatID), func() bool {
		ms = m.messages(t, chatID)
		return len(ms) >= n
	})
	return ms
}

// emailMeta is a message's metadata.email.
func emailMeta(t *testing.T, msg map[string]any) map[string]any {
	t.Helper()
	md, _ := msg["metadata"].(map[string]any)
	em, _ := md["email"].(map[string]any)
	if em == nil {
		t.Fatalf("message without metadata.email: %v", msg)
	}
	return em
}

// header reads a header of a sunk mail.
func header(t *testing.T, raw []byte, key string) string {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return msg.Header.Get(key)
}

// dkimValid verifies a sunk mail's signature against the local DNS server.
func (m *mailEnv) dkimValid(t *testing.T, raw []byte) {
	t.Helper()
	verifs, err := dkim.VerifyWithOptions(bytes.NewReader(raw), &dkim.VerifyOptions{LookupTXT: func(name string) ([]string, error) {
		return []string{strings.Join(m.dns.TXT(name), "")}, nil
	}})
	if err != nil || len(verifs) != 1 || verifs[0].Err != nil || verifs[0].Domain != "support.test" {
		t.Fatalf("dkim: %v %+v", err, verifs)
	}
}

func bracketed(id string) string { return "<" + id + ">" }

// chatOf is the chat whose first mail has Message-ID id.
func (m *mailEnv) chatOf(t *testing.T, id string) string {
	t.Helper()
	for _, c := range m.chats(t) {
		if msgs := m.messages(t, c["id"].(string)); len(msgs) > 0 && emailMeta(t, msgs[0])["message_id"] == id {
			return c["id"].(string)
		}
	}
	t.Fatalf("no chat starts with mail %s", id)
	return ""
}

// dial connects to the listener, waiting while the address's connection budget is still
// held by connections the test closed (the server releases them when it sees the close).
func (m *mailEnv) dial(t *testing.T) *smtp.Client {
	t.Helper()
	var c *smtp.Client
	var err error
	m.e.Eventually(5*time.Second, "a connection slot", func() bool {
		c, err = smtp.Dial(m.smtpAddr())
		return err == nil || !strings.Contains(err.Error(), "too many connections")
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
