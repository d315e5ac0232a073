package web_test

import (
	"io"
	"mime/quotedprintable"
	"net/mail"
	"net/url"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/cli"
)

// TestInviteAndNewPasswordLinksAreMailed: with a relay and email.from, an invite mails the
// one-time link to the new member (from email.from, without the broadcasts' unsubscribe
// header or a DKIM signature of an organization's), the page says so and still shows the link
// once; a new-password link is mailed the same way; and the mailed link lets them in.
func TestInviteAndNewPasswordLinksAreMailed(t *testing.T) {
	t.Parallel()
	sink := apitest.NewSMTPSink(t)
	e := apitest.New(t, func(c *cli.Config) {
		c.Email.SMTPURL = sink.URL()
		c.Email.From = "Acme Support <support@acme.example>"
	})
	admin := signedIn(t, e, e.Owner)
	a := admin.do("POST", "/app/members", url.Values{"csrf": {admin.csrf}, "name": {"Fay Newcomer"}, "email": {"fay@example.com"}, "role": {"MEMBER"}}).expect(t, 200)
	if !strings.Contains(a.Body, "Mailed to <strong>fay@example.com</strong>") {
		t.Fatalf("the page does not say the link was mailed: %.600s", a.Body)
	}
	mails := sink.Wait(t, 1, 10*time.Second)
	invite := string(mails[0].Data)
	link := linkIn(t, invite)
	if mails[0].From != "support@acme.example" || len(mails[0].To) != 1 || mails[0].To[0] != "fay@example.com" ||
		!strings.Contains(invite, "From: \"Acme Support\" <support@acme.example>") || !strings.Contains(invite, "Subject: You are invited to ") ||
		strings.Contains(invite, "List-Unsubscribe") || strings.Contains(invite, "DKIM-Signature") || !strings.Contains(a.Body, link) {
		t.Fatalf("the invite mail (envelope %s -> %v):\n%s", mails[0].From, mails[0].To, invite)
	}
	fay := newTab(t, e)
	fay.get(strings.TrimPrefix(link, originOf(link))).expect(t, 200)
	token := strings.TrimPrefix(link, originOf(link)+"/app/setup?token=")
	fay.do("POST", "/app/setup", url.Values{"token": {token}, "password": {testPassword}, "password_again": {testPassword}}).expect(t, 303)

	// A new-password link for her goes by mail too.
	id := memberID(t, e, "fay@example.com")
	admin.do("POST", "/app/members/"+id+"/link", url.Values{"csrf": {admin.csrf}}).expect(t, 200)
	reset := string(sink.Wait(t, 2, 10*time.Second)[1].Data)
	if !strings.Contains(reset, "Subject: Your new password link for ") || linkIn(t, reset) == link {
		t.Fatalf("the new-password mail:\n%s", reset)
	}
}

// TestInviteLinkShownWhenMailingFails: a relay that refuses the address leaves the link on
// the page, with the reason, for the admin to send.
func TestInviteLinkShownWhenMailingFails(t *testing.T) {
	t.Parallel()
	sink := apitest.NewSMTPSink(t)
	sink.Reject = func(to string) bool { return to == "gone@example.com" }
	e := apitest.New(t, func(c *cli.Config) {
		c.Email.SMTPURL = sink.URL()
		c.Email.From = "support@acme.example"
	})
	admin := signedIn(t, e, e.Owner)
	a := admin.do("POST", "/app/members", url.Values{"csrf": {admin.csrf}, "name": {"Gone"}, "email": {"gone@example.com"}, "role": {"MEMBER"}}).expect(t, 200)
	if !strings.Contains(a.Body, "copy it and send it to them. Mailing it failed: the mail relay refused it") || !strings.Contains(a.Body, "/app/setup?token=") {
		t.Fatalf("a refused invite mail: %.800s", a.Body)
	}
}

// linkIn is the set-password link in a mail's text.
func linkIn(t *testing.T, raw string) string {
	t.Helper()
	msg, err := mail.ReadMessage(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var body io.Reader = msg.Body
	if strings.EqualFold(msg.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "/app/setup?token=")
	if i < 0 {
		t.Fatalf("no link in the mail:\n%s", raw)
	}
	start := strings.LastIndex(text[:i], "http")
	return text[start : i+len("/app/setup?token=")+46]
}

// memberID is the id of the organization's member with that email.
func memberID(t *testing.T, e *apitest.Env, email string) string {
	t.Helper()
	for _, m := range e.Do("GET", "/orgs/c/members?limit=100", e.AdminKey, nil).Expect(200).List() {
		if m["email"] == email {
			return m["id"].(string)
		}
	}
	t.Fatalf("no member %s", email)
	return ""
}

// originOf is the scheme and host of a link.
func originOf(link string) string {
	u, _ := url.Parse(link)
	return u.Scheme + "://" + u.Host
}
