package mail_test

import (
	"bytes"
	"log/slog"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-msgauth/dkim"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

func TestSendingDeliversWithStableMessageIDs(t *testing.T) {
	t.Parallel()
	s := newEmailSetup(t)
	e := s.e
	ann, bob := s.contact(t, "Ann", "ann@dest.test"), s.contact(t, "Bob", "Bob@Dest.test")
	b := s.broadcast(t, ann, bob)
	mails := s.sink.Wait(t, 2, 10*time.Second)
	done := waitBroadcast(t, e, b.ID, app.BroadcastSent)
	if done.Counts.Recipients != 2 || done.Counts.Processed != 2 || done.Counts.Sent != 2 || done.Counts.Failed != 0 {
		t.Fatalf("counts %+v", done.Counts)
	}
	for _, to := range []string{"ann@dest.test", "Bob@Dest.test"} {
		m := mailTo(t, mails, to)
		p := parseMail(t, m)
		r := recipientOf(t, e, b.ID, to)
		if m.From != "news@mail.example.test" {
			t.Fatalf("envelope from %s", m.From)
		}
		from, err := mail.ParseAddress(p.Header.Get("From"))
		if err != nil || from.Address != "news@mail.example.test" || from.Name != "News" {
			t.Fatalf("From %q", p.Header.Get("From"))
		}
		if p.Header.Get("Subject") != "Hello" || !strings.Contains(p.Text, "Hi there") || !strings.Contains(p.HTML, `href="https://example.com/x"`) {
			t.Fatalf("message %+v", p)
		}
		msgID := p.Header.Get("Message-Id")
		if msgID != "<"+str(r, "id")+"@mail.example.test>" || r["external_message_id"] != msgID {
			t.Fatalf("Message-ID %q, recipient %v", msgID, r)
		}
		if r["status"] != "PROCESSED" || r["is_sent"] != true || r["is_sent_at"] != app.At(e.Clock.Now()).String() ||
			r["is_failed"] != nil || r["error_message"] != nil || r["is_skipped"] != nil {
			t.Fatalf("recipient %v", r)
		}
		verifs, err := dkim.VerifyWithOptions(bytes.NewReader(m.Data), &dkim.VerifyOptions{LookupTXT: func(name string) ([]string, error) {
			return []string{strings.Join(s.dns.TXT(name), "")}, nil
		}})
		if err != nil || len(verifs) != 1 || verifs[0].Err != nil {
			t.Fatalf("dkim: %v %+v", err, verifs)
		}
	}
	// Nothing goes twice.
	e.WaitIdle()
	if n := len(s.sink.Mails()); n != 2 {
		t.Fatalf("%d messages", n)
	}
}

func TestSendingWithAnUnverifiedIdentityFails(t *testing.T) {
	t.Parallel()
	s := newEmailSetup(t)
	e := s.e
	rcv := apitest.NewReceiver(t)
	e.Webhook(e.AdminKey, "c", rcv.URL, app.EventBroadcastFailed)
	var d app.Domain
	var id app.EmailIdentity
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "unverified.test"}).Expect(201).JSON(&d)
	e.Do("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": "x@unverified.test"}).Expect(201).JSON(&id)
	ann, bob := s.contact(t, "Ann", "ann@dest.test"), s.contact(t, "Bob", "bob@dest.test")
	var b app.Broadcast
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, map[string]any{"name": "Nope", "integration_id": "email", "identity_id": id.ID,
		"subject": "S", "text": "T", "contact_ids": []string{ann.ID, bob.ID}}).Expect(201).JSON(&b)
	done := waitBroadcast(t, e, b.ID, app.BroadcastFailed)
	if done.Counts.Failed != 2 || done.Counts.Processed != 2 || done.Counts.Sent != 0 {
		t.Fatalf("counts %+v", done.Counts)
	}
	for _, r := range recipients(t, e, "broadcast_id="+b.ID) {
		if r["is_failed"] != true || r["is_failed_at"] == nil || r["status"] != "PROCESSED" || r["is_sent"] != nil ||
			!strings.Contains(str(r, "error_message"), "not verified") || r["external_message_id"] != nil {
			t.Fatalf("recipient %v", r)
		}
	}
	data := waitEvents(t, rcv, app.EventBroadcastFailed, 1)
	if data[0]["id"] != b.ID || data[0]["status"] != "FAILED" {
		t.Fatalf("broadcast.failed data %v", data[0])
	}
	rcv.Quiet(t, 1, 100*time.Millisecond)
	if n := len(s.sink.Mails()); n != 0 {
		t.Fatalf("%d messages went out", n)
	}
}

func TestSendingSkipsSuppressedAndOptedOut(t *testing.T) {
	t.Parallel()
	s := newEmailSetup(t)
	e := s.e
	rcv := apitest.NewReceiver(t)
	e.Webhook(e.AdminKey, "c", rcv.URL, app.EventBroadcastSuppressed, app.EventBroadcastFailed)
	ok := s.contact(t, "Ok", "ok@dest.test")
	sup := s.contact(t, "Sup", "Sup@Dest.test")
	unsub := s.contact(t, "Unsub", "unsub@dest.test")
	blocked := s.contact(t, "Blocked", "blocked@dest.test")
	e.Do("POST", "/orgs/c/suppressions", e.AdminKey, map[string]any{"email": "sup@dest.test"}).Expect(201)
	e.Do("PATCH", "/orgs/c/contacts/"+unsub.ID, e.AdminKey, map[string]any{"unsubscribed": true}).Expect(200)
	e.Do("PATCH", "/orgs/c/contacts/"+blocked.ID, e.AdminKey, map[string]any{"blocked": true}).Expect(200)
	b := s.broadcast(t, ok, sup, unsub, blocked)
	done := waitBroadcast(t, e, b.ID, app.BroadcastSent)
	if done.Counts.Skipped != 3 || done.Counts.Sent != 1 || done.Counts.Processed != 4 {
		t.Fatalf("counts %+v", done.Counts)
	}
	mails := s.sink.Mails()
	if len(mails) != 1 || mails[0].To[0] != "ok@dest.test" {
		t.Fatalf("mails %+v", mails)
	}
	for _, c := range []app.Contact{sup, unsub, blocked} {
		r := recipients(t, e, "broadcast_id="+b.ID+"&contact_id="+c.ID)[0]
		if r["is_skipped"] != true || r["is_skipped_at"] == nil || r["status"] != "PROCESSED" || r["is_sent"] != nil ||
			r["is_failed"] != nil || r["external_message_id"] != nil {
			t.Fatalf("skipped recipient %v", r)
		}
	}
	data := waitEvents(t, rcv, app.EventBroadcastSuppressed, 1)
	d := data[0]
	if d["email"] != "Sup@Dest.test" || d["contact_id"] != sup.ID || d["reason"] == nil || d["reason"] == "" {
		t.Fatalf("broadcast.suppressed data %v", d)
	}
	if _, ok := d["message_id"]; !ok {
		t.Fatalf("broadcast.suppressed data lacks message_id: %v", d)
	}
	// Opted-out contacts give no suppression event; nothing failed.
	rcv.Quiet(t, 1, 150*time.Millisecond)
	if len(events(rcv, app.EventBroadcastFailed)) != 0 {
		t.Fatalf("broadcast.failed fired")
	}
}

func TestSendingRejectedAddressFailsOnlyItself(t *testing.T) {
	t.Parallel()
	s := newEmailSetup(t)
	e := s.e
	s.sink.Reject = func(to string) bool { return to == "gone@dest.test" }
	a, gone, c := s.contact(t, "A", "a@dest.test"), s.contact(t, "Gone", "gone@dest.test"), s.contact(t, "C", "c@dest.test")
	b := s.broadcast(t, a, gone, c)
	done := waitBroadcast(t, e, b.ID, app.BroadcastSent)
	if done.Counts.Sent != 2 || done.Counts.Failed != 1 || done.Counts.Processed != 3 {
		t.Fatalf("counts %+v", done.Counts)
	}
	r := recipientOf(t, e, b.ID, "gone@dest.test")
	if r["is_failed"] != true || r["is_sent"] != nil || r["status"] != "PROCESSED" || !strings.Contains(str(r, "error_message"), "550") ||
		r["external_message_id"] != nil {
		t.Fatalf("rejected recipient %v", r)
	}
	for _, to := range []string{"a@dest.test", "c@dest.test"} {
		if r := recipientOf(t, e, b.ID, to); r["is_sent"] != true || r["is_failed"] != nil {
			t.Fatalf("recipient %v", r)
		}
	}
	if got := s.sink.Mails(); len(got) != 2 {
		t.Fatalf("%d messages", len(got))
	}
	// The failure is on the record and the list filters find it.
	if l := recipients(t, e, "broadcast_id="+b.ID+"&is_failed=true"); len(l) != 1 || l[0]["id"] != r["id"] {
		t.Fatalf("failed filter %v", l)
	}
}

func TestSendingWithoutSMTPFailsClearly(t *testing.T) {
	t.Parallel()
	s := newEmailSetup(t, func(c *cli.Config) { c.Email.SMTPURL = "" })
	e := s.e
	a := s.contact(t, "A", "a@dest.test")
	b := s.broadcast(t, a)
	waitBroadcast(t, e, b.ID, app.BroadcastFailed)
	if r := recipientOf(t, e, b.ID, "a@dest.test"); !strings.Contains(str(r, "error_message"), "email.smtp_url") {
		t.Fatalf("recipient %v", r)
	}
}

// TestFailedSendIsLogged: a recipient the relay refuses writes a WARN line naming the
// organization, broadcast and recipient, and the relay's reason.
func TestFailedSendIsLogged(t *testing.T) {
	t.Parallel()
	var log apitest.LogBuffer
	s := newEmailSetupEdited(t, func(d *app.Deps) { d.Log = slog.New(slog.NewTextHandler(&log, nil)) })
	s.sink.Reject = func(to string) bool { return to == "gone@dest.test" }
	b := s.broadcast(t, s.contact(t, "Gone", "gone@dest.test"))
	waitBroadcast(t, s.e, b.ID, app.BroadcastFailed)
	r := recipientOf(t, s.e, b.ID, "gone@dest.test")
	if l := log.Line(5*time.Second, "level=WARN", `msg="broadcasts: recipient failed"`, "org="+s.e.Org.ID, "broadcast="+b.ID,
		"recipient="+str(r, "id"), "550"); l == "" {
		t.Fatalf("no WARN line for the refused recipient:\n%s", log.String())
	}
}
