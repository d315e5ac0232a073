package mailbox_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// poll is the tests' email.imap_poll: long, on the manual clock, so a mail that arrives
// without the clock moving came by IDLE, and one that needs the clock came by the poll.
const poll = time.Hour

// wait bounds waiting for what the server does on its own (the machine may be loaded).
const wait = 15 * time.Second

// box is a server with an assistant, a verified email identity and an IMAP account.
type box struct {
	e        *apitest.Env
	imap     *apitest.IMAPServer
	identity string
	asst     string
}

func newBox(t *testing.T, idle bool, configure ...func(*cli.Config)) *box {
	t.Helper()
	dns := apitest.NewDNSServer(t)
	srv := apitest.NewIMAPServer(t, "support@mail.example.test", "right-password", idle)
	e := apitest.New(t, append([]func(*cli.Config){func(c *cli.Config) {
		c.DNS.Resolver = dns.Addr
		c.Email.IMAPPoll = poll
		c.HTTP.RateLimitPerMinute = 0 // the tests read the inbox until it holds what they wait for
	}}, configure...)...)
	return &box{e: e, imap: srv, identity: verifiedIdentity(t, e, dns), asst: assistant(t, e)}
}

func verifiedIdentity(t *testing.T, e *apitest.Env, dns *apitest.DNSServer) string {
	t.Helper()
	var d app.Domain
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "mail.example.test"}).Expect(201).JSON(&d)
	for _, rec := range append([]app.DNSRecord{d.VerificationRecord}, d.DKIMTokens...) {
		dns.SetTXT(rec.Name, rec.Value)
	}
	e.Do("POST", "/orgs/c/domains/"+d.ID+"/verify", e.AdminKey, nil).Expect(200)
	var id app.EmailIdentity
	e.Do("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": "support@mail.example.test"}).
		Expect(201).JSON(&id)
	return id.ID
}

func assistant(t *testing.T, e *apitest.Env) string {
	t.Helper()
	var a map[string]any
	e.Do("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": "Mia"}).Expect(201).JSON(&a)
	return a["id"].(string)
}

func (b *box) path(rest ...string) string {
	return "/orgs/c/assistants/" + b.asst + "/integrations" + strings.Join(rest, "")
}

// integration creates the imap email integration with password, answering it.
func (b *box) integration(t *testing.T, password string) app.Deployment {
	t.Helper()
	var d app.Deployment
	b.e.Do("POST", b.path(), b.e.AdminKey, map[string]any{"integration_id": "email", "name": "Support mailbox",
		"config": b.imap.Config(b.identity, "INBOX"), "secrets": map[string]string{"imap_password": password}}).
		Expect(201).JSON(&d)
	return d
}

func (b *box) get(t *testing.T, id string) app.Deployment {
	t.Helper()
	var d app.Deployment
	b.e.Do("GET", b.path("/", id), b.e.AdminKey, nil).Expect(200).JSON(&d)
	return d
}

// texts answers the text of every contact message in the integration's chats, sorted.
func (b *box) texts(t *testing.T, asi string) []string {
	t.Helper()
	var chats []map[string]any
	b.e.Do("GET", "/orgs/c/inbox?limit=100&assistant_integration_id="+asi, b.e.AdminKey, nil).Expect(200).JSON(&chats)
	var out []string
	for _, c := range chats {
		var msgs []app.Message
		b.e.Do("GET", "/orgs/c/chats/"+c["id"].(string)+"/messages", b.e.AdminKey, nil).Expect(200).JSON(&msgs)
		for _, m := range msgs {
			if m.Role != "user" {
				continue
			}
			text := "" // a mail without text (its files only) counts as ""
			for _, turn := range m.Messages {
				for _, p := range turn.Parts {
					if p.Type == "text" {
						text += strings.TrimSpace(p.Text)
					}
				}
			}
			out = append(out, text)
		}
	}
	sort.Strings(out)
	return out
}

// waitTexts waits until the integration's chats hold exactly want (sorted).
func (b *box) waitTexts(t *testing.T, asi string, want ...string) {
	t.Helper()
	sort.Strings(want)
	var got []string
	deadline := time.Now().Add(wait)
	for {
		if got = b.texts(t, asi); fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("contact messages %q, want %q", got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitStatus waits until the integration's status is want, with an error holding why.
func (b *box) waitStatus(t *testing.T, asi, want, why string) app.Deployment {
	t.Helper()
	var d app.Deployment
	deadline := time.Now().Add(wait)
	for {
		d = b.get(t, asi)
		if d.Status == want && (why == "" && d.Error == nil || why != "" && d.Error != nil && strings.Contains(*d.Error, why)) {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("integration status %s (%v), want %s %q", d.Status, d.Error, want, why)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// mail is a plain mail; id "" leaves the Message-ID out (the receiver cannot deduplicate it,
// so only the cursor keeps it from being imported twice).
func mail(from, subject, id, text string) []byte {
	h := "From: " + from + "\r\nTo: support@mail.example.test\r\nSubject: " + subject +
		"\r\nDate: Tue, 3 Mar 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
	if id != "" {
		h += "Message-ID: <" + id + ">\r\n"
	}
	return []byte(h + "\r\n" + text + "\r\n")
}

// tick moves the manual clock a poll interval: every mailbox is due again.
func (b *box) tick() { b.e.Clock.Advance(poll) }
