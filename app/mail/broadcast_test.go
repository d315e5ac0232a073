package mail_test

import (
	"bytes"
	"net/http"
	"net/mail"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-msgauth/dkim"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// emailSetup is an organization with a verified domain and identity, served by a local DNS
// server and sending to a local SMTP sink.
type emailSetup struct {
	e        *apitest.Env
	dns      *apitest.DNSServer
	sink     *apitest.SMTPSink
	domain   app.Domain
	identity app.EmailIdentity
}

func newEmailSetup(t *testing.T, configure ...func(*cli.Config)) *emailSetup {
	return newEmailSetupEdited(t, nil, configure...)
}

// newEmailSetupEdited is newEmailSetup with edit changing the service's collaborators.
func newEmailSetupEdited(t *testing.T, edit func(*app.Deps), configure ...func(*cli.Config)) *emailSetup {
	dnsSrv := apitest.NewDNSServer(t)
	sink := apitest.NewSMTPSink(t)
	e := apitest.NewEdited(t, nil, edit, append([]func(*cli.Config){func(c *cli.Config) {
		c.DNS.Resolver = dnsSrv.Addr
		c.Email.SMTPURL = sink.URL()
	}}, configure...)...)
	s := &emailSetup{e: e, dns: dnsSrv, sink: sink}
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "mail.example.test"}).Expect(201).JSON(&s.domain)
	for _, rec := range append([]app.DNSRecord{s.domain.VerificationRecord}, s.domain.DKIMTokens...) {
		dnsSrv.SetTXT(rec.Name, rec.Value)
	}
	e.Do("POST", "/orgs/c/domains/"+s.domain.ID+"/verify", e.AdminKey, nil).Expect(200).JSON(&s.domain)
	if s.domain.DKIMStatus != app.StatusVerified {
		t.Fatalf("domain not verified: %+v", s.domain)
	}
	e.Do("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": "news@mail.example.test", "name": "News"}).
		Expect(201).JSON(&s.identity)
	return s
}

func (s *emailSetup) contact(t *testing.T, name, email string) app.Contact {
	var c app.Contact
	s.e.Do("POST", "/orgs/c/contacts", s.e.AdminKey, map[string]any{"name": name,
		"channels": []map[string]string{{"type": "email", "email": email}}}).Expect(201).JSON(&c)
	return c
}

func (s *emailSetup) broadcast(t *testing.T, contacts ...app.Contact) app.Broadcast {
	ids := make([]string, len(contacts))
	for i, c := range contacts {
		ids[i] = c.ID
	}
	var b app.Broadcast
	s.e.Do("POST", "/orgs/c/broadcasts", s.e.AdminKey, map[string]any{"name": "Launch", "integration_id": "email",
		"identity_id": s.identity.ID, "subject": "Hello", "text": "Hi there", "html": "<p>Hi <a href=\"https://example.com/x\">there</a></p>",
		"contact_ids": ids}).Expect(201).JSON(&b)
	return b
}

func TestBroadcastEmailIsDKIMSignedWithWorkingUnsubscribe(t *testing.T) {
	t.Parallel()
	s := newEmailSetup(t, func(c *cli.Config) { c.HTTP.PublicURL = "https://api.example.test" })
	ann := s.contact(t, "Ann", "ann@dest.test")
	s.broadcast(t, ann)
	m := s.sink.Wait(t, 1, 10*time.Second)[0]
	if m.From != "news@mail.example.test" || len(m.To) != 1 || m.To[0] != "ann@dest.test" {
		t.Fatalf("envelope %s -> %v", m.From, m.To)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		t.Fatal(err)
	}
	if from := msg.Header.Get("From"); !strings.Contains(from, "news@mail.example.test") || !strings.Contains(from, "News") {
		t.Fatalf("From %q", from)
	}
	verifs, err := dkim.VerifyWithOptions(bytes.NewReader(m.Data), &dkim.VerifyOptions{LookupTXT: func(name string) ([]string, error) {
		return []string{strings.Join(s.dns.TXT(name), "")}, nil
	}})
	if err != nil || len(verifs) != 1 || verifs[0].Err != nil || verifs[0].Domain != "mail.example.test" {
		t.Fatalf("dkim: %v %+v", err, verifs)
	}
	link := regexp.MustCompile(`<(http[^>]+/u/[^>]+)>`).FindStringSubmatch(msg.Header.Get("List-Unsubscribe"))
	if link == nil || msg.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Fatalf("unsubscribe headers %v", msg.Header)
	}
	path := link[1][strings.Index(link[1], "/u/"):]
	// GET (a person, or a mail scanner prefetching the link) only shows the confirmation.
	page := s.e.Do("GET", path, "", nil).Expect(200)
	if !strings.Contains(string(page.Body), `<form method="post">`) {
		t.Fatalf("confirmation page %s", page.Body)
	}
	var got app.Contact
	s.e.Do("GET", "/orgs/c/contacts/"+ann.ID, s.e.AdminKey, nil).Expect(200).JSON(&got)
	if got.Unsubscribed {
		t.Fatal("a GET of the unsubscribe link unsubscribed the contact")
	}
	// RFC 8058 one-click, as a mail client sends it.
	req, _ := http.NewRequest("POST", s.e.Server.URL+path, strings.NewReader("List-Unsubscribe=One-Click"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if res := s.e.Send(req).Expect(200); !strings.Contains(string(res.Body), `"unsubscribed":true`) {
		t.Fatalf("one-click answer %s", res.Body)
	}
	s.e.Do("GET", "/orgs/c/contacts/"+ann.ID, s.e.AdminKey, nil).Expect(200).JSON(&got)
	if !got.Unsubscribed || got.UnsubscribeReason == nil || *got.UnsubscribeReason != app.ReasonUnsubscribeLink {
		t.Fatalf("contact after unsubscribe %+v", got)
	}
	s.e.Do("POST", path, "", nil).Expect(http.StatusOK)
	s.e.Do("GET", "/u/bogus.token", "", nil).Expect(404)
}

func TestBadUnsubscribeLinkAnswersAPage(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	res := e.Do("GET", "/u/not-a-token", "", nil).Expect(404)
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(res.Body), "not valid") {
		t.Fatalf("answer %s %s", res.Header.Get("Content-Type"), res.Body)
	}
	e.Do("POST", "/u/not-a-token", "", nil).ExpectError(404, "not_found")
}

// The confirmation page's button POSTs its form and gets a page back, not JSON.
func TestUnsubscribeConfirmationForm(t *testing.T) {
	t.Parallel()
	s := newEmailSetup(t)
	ann := s.contact(t, "Ann", "ann@dest.test")
	s.broadcast(t, ann)
	msg, err := mail.ReadMessage(bytes.NewReader(s.sink.Wait(t, 1, 10*time.Second)[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	// Over plain HTTP (no https public_url) the one-click header is left out (RFC 8058).
	if msg.Header.Get("List-Unsubscribe-Post") != "" {
		t.Fatalf("List-Unsubscribe-Post with an http link: %v", msg.Header)
	}
	path := linkPath(t, msg.Header.Get("List-Unsubscribe"), "/u/")
	req, _ := http.NewRequest("POST", s.e.Server.URL+path, strings.NewReader("confirm=yes"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res := s.e.Send(req).Expect(200)
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(res.Body), "You are unsubscribed") {
		t.Fatalf("form answer %s %s", res.Header.Get("Content-Type"), res.Body)
	}
	var got app.Contact
	s.e.Do("GET", "/orgs/c/contacts/"+ann.ID, s.e.AdminKey, nil).Expect(200).JSON(&got)
	if !got.Unsubscribed {
		t.Fatal("the confirmed form did not unsubscribe")
	}
}
