package mail_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// One organization's big broadcast goes to a slow relay (a second per message); another
// organization's broadcast, made after it, still completes at once: the sender takes
// recipients round-robin across organizations and leaves the first one only its share of the
// workers. Before, it took the oldest recipients of all, and the second broadcast waited for
// the whole first one (60 messages, at most 6 at a time for one organization, a second each:
// 10 s; it was 100 messages, run alone, and under -race it was the package's third slowest).
func TestBigSlowBroadcastDoesNotDelayOtherOrgs(t *testing.T) {
	t.Parallel()
	s := newEmailSetup(t, manyRequests)
	e := s.e
	s.sink.Delay = func(to string) time.Duration {
		if strings.HasSuffix(to, "@slow.test") {
			return time.Second
		}
		return 0
	}
	var big []app.Contact
	for i := 0; i < 60; i++ {
		big = append(big, s.contact(t, fmt.Sprintf("X%03d", i), fmt.Sprintf("x%03d@slow.test", i)))
	}
	s.broadcast(t, big...)
	s.sink.Wait(t, 1, 5*time.Second) // the first slow messages are through: the workers are busy with the rest

	other, key := e.TenantWithAdmin("Other")
	identity := verifiedIdentity(t, s, key, other.ID, "news.other.test")
	var c app.Contact
	e.Do("POST", "/orgs/"+other.ID+"/contacts", key, map[string]any{"name": "Yan",
		"channels": []map[string]string{{"type": "email", "email": "yan@dest.test"}}}).Expect(201).JSON(&c)
	start := time.Now()
	var b app.Broadcast
	e.Do("POST", "/orgs/"+other.ID+"/broadcasts", key, map[string]any{"name": "Other news", "integration_id": "email",
		"identity_id": identity.ID, "subject": "Hi", "text": "Hello", "contact_ids": []string{c.ID}}).Expect(201).JSON(&b)
	// Well within the 10 s the big one takes, even beside the package's other tests.
	e.Eventually(5*time.Second, "the other organization's broadcast to be SENT", func() bool {
		e.Do("GET", "/orgs/"+other.ID+"/broadcasts/"+b.ID, key, nil).Expect(200).JSON(&b)
		return b.Status == app.BroadcastSent
	})
	slow := 0
	for _, m := range s.sink.Mails() {
		if strings.HasSuffix(m.To[0], "@slow.test") {
			slow++
		}
	}
	t.Logf("the other organization's broadcast was SENT in %s, while %d of the big one's 60 messages had gone",
		time.Since(start), slow)
	if b.Counts.Sent != 1 || slow > 30 {
		t.Fatalf("counts %+v, %d slow messages sent first", b.Counts, slow)
	}
	if n := len(mailsTo(s.sink.Mails(), "yan@dest.test")); n != 1 {
		t.Fatalf("%d messages to the other organization's contact", n)
	}
}

// verifiedIdentity makes a verified domain and an identity on it in org.
func verifiedIdentity(t *testing.T, s *emailSetup, key, org, domain string) app.EmailIdentity {
	t.Helper()
	var d app.Domain
	s.e.Do("POST", "/orgs/"+org+"/domains", key, map[string]string{"domain": domain}).Expect(201).JSON(&d)
	for _, rec := range append([]app.DNSRecord{d.VerificationRecord}, d.DKIMTokens...) {
		s.dns.SetTXT(rec.Name, rec.Value)
	}
	s.e.Do("POST", "/orgs/"+org+"/domains/"+d.ID+"/verify", key, nil).Expect(200).JSON(&d)
	if d.DKIMStatus != app.StatusVerified {
		t.Fatalf("domain not verified: %+v", d)
	}
	var id app.EmailIdentity
	s.e.Do("POST", "/orgs/"+org+"/emails/identities", key, map[string]any{"email": "news@" + domain}).Expect(201).JSON(&id)
	return id
}

func mailsTo(mails []apitest.Mail, to string) []apitest.Mail {
	var out []apitest.Mail
	for _, m := range mails {
		if len(m.To) == 1 && m.To[0] == to {
			out = append(out, m)
		}
	}
	return out
}
