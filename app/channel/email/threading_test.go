package email_test

import (
	"strings"
	"testing"
	"time"

	"wsapi/app"
)

// TestEmailRepliesToABroadcastStaySeparate: two people answering one broadcast get a chat
// each, with their own contact; a third mail that references Ann's thread but comes from Bob
// opens Bob's own chat, never Ann's.
func TestEmailRepliesToABroadcastStaySeparate(t *testing.T) {
	t.Parallel()
	m := newMailEnv(t)
	e := m.e
	contact := func(name, addr string) app.Contact {
		var c app.Contact
		e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": name,
			"channels": []map[string]string{{"type": "email", "email": addr}}}).Expect(201).JSON(&c)
		return c
	}
	ann, bob := contact("Ann", "ann@customer.test"), contact("Bob", "bob@customer.test")
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, map[string]any{"name": "Launch", "integration_id": "email",
		"identity_id": m.identity.ID, "subject": "We launched", "text": "Tell us what you think.",
		"contact_ids": []string{ann.ID, bob.ID}}).Expect(201)
	sent := m.sink.Wait(t, 2, 10*time.Second)
	ids := map[string]string{}
	for _, s := range sent {
		ids[s.To[0]] = header(t, s.Data, "Message-Id")
	}
	for _, who := range []string{"ann", "bob"} {
		addr := who + "@customer.test"
		m.mustSend(t, addr, []string{helpAddr}, m.signed(t, &letter{from: addr, to: helpAddr, subject: "Re: We launched",
			headers: []string{"In-Reply-To: " + ids[addr], "References: " + ids[addr]}, body: "Great news from " + who}))
	}
	chats := m.chats(t)
	if len(chats) != 2 {
		t.Fatalf("%d chats for two people", len(chats))
	}
	owner := map[string]string{}
	for _, c := range chats {
		owner[chatContact(t, c)] = c["id"].(string)
	}
	if owner[ann.ID] == "" || owner[bob.ID] == "" {
		t.Fatalf("chats %v: want one of Ann's and one of Bob's", chats)
	}
	// The assistant answers Ann; Bob answers that answer (forwarded to him): his own chat.
	e.Clock.Advance(time.Second)
	var annAnswer string
	e.Eventually(10*time.Second, "answers", func() bool {
		for _, s := range m.sink.Mails() {
			if s.To[0] == "ann@customer.test" && header(t, s.Data, "In-Reply-To") != "" {
				annAnswer = header(t, s.Data, "Message-Id")
			}
		}
		return annAnswer != ""
	})
	m.mustSend(t, "bob@customer.test", []string{helpAddr}, m.signed(t, &letter{from: "bob@customer.test", to: helpAddr,
		subject: "Fwd: Re: We launched", headers: []string{"In-Reply-To: " + annAnswer, "References: " + annAnswer},
		body: "Ann sent me this; me too?"}))
	annMsgs := m.messages(t, owner[ann.ID])
	for _, msg := range annMsgs {
		if strings.Contains(msg["messages"].([]any)[0].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"].(string), "me too") {
			t.Fatalf("Bob's mail joined Ann's chat")
		}
	}
	if n := len(m.chats(t)); n != 3 {
		t.Fatalf("%d chats, want Bob's second", n)
	}
}

// TestEmailPermanentFailureAndSetUp: a reply the relay refuses for good is FAILED with the
// relay's words; an integration whose identity is not verified is saved FAILED with the
// reason; /metadata offers email.
func TestEmailPermanentFailureAndSetUp(t *testing.T) {
	t.Parallel()
	m := newMailEnv(t)
	e := m.e
	m.sink.Reject = func(to string) bool { return to == "carl@customer.test" }
	m.mustSend(t, "carl@customer.test", []string{helpAddr}, m.signed(t, &letter{from: "carl@customer.test", to: helpAddr,
		subject: "Hours", body: "When are you open?"}))
	chatID := m.chats(t)[0]["id"].(string)
	e.Clock.Advance(time.Second)
	var d map[string]any
	e.Eventually(10*time.Second, "delivery FAILED", func() bool {
		msgs := m.messages(t, chatID)
		if len(msgs) < 2 {
			return false
		}
		d, _ = msgs[1]["delivery"].(map[string]any)
		return d != nil && d["status"] == "FAILED"
	})
	if msg, _ := d["error"].(string); !strings.Contains(msg, "550") || !strings.Contains(msg, "no such user") {
		t.Fatalf("delivery %v", d)
	}

	var dom app.Domain
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "other.test"}).Expect(201).JSON(&dom)
	var id app.EmailIdentity
	e.Do("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": "x@other.test"}).Expect(201).JSON(&id)
	var asi map[string]any
	e.Do("POST", "/orgs/c/assistants/"+m.asst+"/integrations", e.AdminKey, map[string]any{"integration_id": "email",
		"name": "Unverified", "config": map[string]any{"identity_id": id.ID, "inbound": "smtp"}}).Expect(201).JSON(&asi)
	if why, _ := asi["error"].(string); asi["status"] != "FAILED" || !strings.Contains(why, "not verified") {
		t.Fatalf("integration %v", asi)
	}
	md := e.Do("GET", "/metadata", "", nil).Expect(200).Map()
	var offered bool
	for _, o := range md["sets"].(map[string]any)["assistant_integration_id"].([]any) {
		offered = offered || o.(map[string]any)["value"] == "email"
	}
	if !offered {
		t.Fatalf("metadata does not offer email: %v", md["sets"].(map[string]any)["assistant_integration_id"])
	}
}

// chatContact is the id of a chat's contact, from its contact member's channel.
func chatContact(t *testing.T, chat map[string]any) string {
	t.Helper()
	for _, mem := range chat["members"].([]any) {
		if ch, ok := mem.(map[string]any)["contact_channel"].(map[string]any); ok {
			if c, ok := ch["contact"].(map[string]any); ok {
				return c["id"].(string)
			}
		}
	}
	t.Fatalf("chat without a contact: %v", chat)
	return ""
}
