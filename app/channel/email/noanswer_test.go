package email_test

import (
	"testing"
	"time"

	"wsapi/cli"
)

// TestEmailNoAutomaticAnswer: an auto-responder's mail, a mail failing DMARC, a null sender's
// and a mail past the contact's hourly cap land in the inbox and get no answer; a DSN puts
// the failed address on the suppression list and unsubscribes its contact.
func TestEmailNoAutomaticAnswer(t *testing.T) {
	t.Parallel()
	m := newMailEnv(t, func(c *cli.Config) { c.Email.MaxAutoRepliesPerHour = 1 })
	e := m.e
	cases := []struct {
		name, mailFrom, noRun, dmarc string
		l                            *letter
		sign                         bool
	}{
		{"auto-responder", "ooo@customer.test", "auto_reply", "pass", &letter{from: "ooo@customer.test", to: helpAddr,
			subject: "Out of office", body: "I am away until Monday.", headers: []string{"Auto-Submitted: auto-replied"}}, true},
		{"bulk", "list@customer.test", "auto_reply", "pass", &letter{from: "list@customer.test", to: helpAddr,
			subject: "Newsletter", body: "News.", headers: []string{"Precedence: bulk"}}, true},
		{"mailing list", "members@customer.test", "auto_reply", "pass", &letter{from: "members@customer.test", to: helpAddr,
			subject: "[club] hello", body: "Hello all.", headers: []string{"List-Id: <club.customer.test>"}}, true},
		{"dmarc failure", "attacker@evil.test", "dmarc_fail", "fail", &letter{from: "ceo@bank.test", to: helpAddr,
			subject: "Wire money", body: "Please answer with the account details."}, false},
		{"null sender", "", "null_sender", "pass", &letter{from: "daemon@customer.test", to: helpAddr,
			subject: "Notice", body: "Automatic notice."}, true},
	}
	for _, c := range cases {
		raw := c.l.compose()
		if c.sign {
			raw = m.signed(t, c.l)
		}
		m.mustSend(t, c.mailFrom, []string{helpAddr}, raw)
	}
	chats := m.chats(t)
	if len(chats) != len(cases) {
		t.Fatalf("%d chats, want %d", len(chats), len(cases))
	}
	e.Clock.Advance(time.Second) // past the debounce: a run would start now
	e.WaitIdle()
	for _, c := range cases {
		var found bool
		for _, ch := range chats {
			msgs := m.messages(t, ch["id"].(string))
			em := emailMeta(t, msgs[0])
			if em["message_id"] != c.l.id {
				continue
			}
			found = true
			if em["no_run"] != c.noRun || em["dmarc"] != c.dmarc || len(msgs) != 1 {
				t.Errorf("%s: metadata %v, %d messages", c.name, em, len(msgs))
			}
		}
		if !found {
			t.Errorf("%s: no chat", c.name)
		}
	}
	if n := len(m.sink.Mails()); n != 0 {
		t.Fatalf("%d mails sent to robots", n)
	}

	// The hourly cap (1 here): Pat's first mail is answered, the second lands for a human.
	m.mustSend(t, "pat@customer.test", []string{helpAddr}, m.signed(t, &letter{from: "pat@customer.test", to: helpAddr,
		subject: "Hours", body: "When are you open?"}))
	e.Clock.Advance(time.Second)
	m.sink.Wait(t, 1, 10*time.Second)
	second := &letter{from: "pat@customer.test", to: helpAddr, subject: "Again", body: "And on Sunday?"}
	m.mustSend(t, "pat@customer.test", []string{helpAddr}, m.signed(t, second))
	e.Clock.Advance(time.Second)
	e.WaitIdle()
	msgs := m.messages(t, m.chatOf(t, second.id))
	if em := emailMeta(t, msgs[0]); em["no_run"] != "reply_cap" || len(msgs) != 1 {
		t.Fatalf("capped mail %v (%d messages)", em, len(msgs))
	}
	// An hour later Pat may be answered again.
	e.Clock.Advance(time.Hour)
	m.mustSend(t, "pat@customer.test", []string{helpAddr}, m.signed(t, &letter{from: "pat@customer.test", to: helpAddr,
		subject: "Later", body: "Open on Monday?"}))
	e.Clock.Advance(time.Second)
	m.sink.Wait(t, 2, 10*time.Second)
}

// TestEmailDSNSuppresses: a delivery status notification is no conversation: the failed
// recipient joins the suppression list (reason bounce), its contact is unsubscribed, and no
// chat is opened; a later reply to that address fails at once.
func TestEmailDSNSuppresses(t *testing.T) {
	t.Parallel()
	m := newMailEnv(t)
	e := m.e
	var contact map[string]any
	e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": "Gone", "channels": []map[string]string{{"type": "email",
		"email": "Gone@Customer.test"}}}).Expect(201).JSON(&contact)
	dsn := &letter{from: "MAILER-DAEMON@customer.test", to: helpAddr, subject: "Undelivered Mail Returned to Sender",
		raw: `Content-Type: multipart/report; report-type=delivery-status; boundary="r1"

--r1
Content-Type: text/plain

This is the mail system at host mx.customer.test. Your message could not be delivered.
--r1
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.customer.test

Final-Recipient: rfc822; gone@customer.test
Original-Recipient: rfc822;gone@customer.test
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 no such user

Final-Recipient: rfc822; here@customer.test
Action: delivered
Status: 2.0.0
--r1
Content-Type: text/rfc822-headers

From: help@support.test
To: gone@customer.test
Subject: Re: hello
--r1--
`}
	m.mustSend(t, "", []string{helpAddr}, dsn.compose())
	sup := e.Do("GET", "/orgs/c/suppressions", e.AdminKey, nil).Expect(200).List()
	if len(sup) != 1 || sup[0]["email"] != "gone@customer.test" || sup[0]["reason"] != "bounce" {
		t.Fatalf("suppressions %v", sup)
	}
	got := e.Do("GET", "/orgs/c/contacts/"+contact["id"].(string), e.AdminKey, nil).Expect(200).Map()
	if got["unsubscribed"] != true || got["unsubscribe_reason"] != "bounce" {
		t.Fatalf("contact %v", got)
	}
	if n := len(m.chats(t)); n != 0 {
		t.Fatalf("a DSN opened %d chats", n)
	}
}
