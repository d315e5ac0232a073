package whatsapp_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/app/channel/whatsapp/whatsapptest"
	"wsapi/cli"
)

// TestWhatsAppConversation: Meta's verification GET is answered only with the integration's
// verify token; unsigned and wrongly signed POSTs are refused and leave nothing; a signed
// message opens a chat that the built-in assistant answers through the Graph API; status
// webhooks move the reply's delivery (sent, delivered, read; failed with Meta's title).
func TestWhatsAppConversation(t *testing.T) {
	t.Parallel()
	w := newWA(t)
	e, srv := w.e, w.srv

	q := url.Values{"hub.mode": {"subscribe"}, "hub.verify_token": {w.token}, "hub.challenge": {"1158201444"}}
	if res := w.challenge(w.asi, q).Expect(200); string(res.Body) != "1158201444" ||
		!strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("challenge answer %q %s", res.Body, res.Header.Get("Content-Type"))
	}
	q.Set("hub.challenge", strings.Repeat("9", 256))
	w.challenge(w.asi, q).Expect(200)
	q.Set("hub.challenge", strings.Repeat("9", 257))
	w.challenge(w.asi, q).Expect(400)
	q.Set("hub.challenge", "1")
	bad := url.Values{"hub.mode": {"subscribe"}, "hub.verify_token": {w.token + "x"}, "hub.challenge": {"1"}}
	w.challenge(w.asi, bad).ExpectError(403, "permission_denied")
	w.challenge(w.asi, url.Values{"hub.mode": {"unsubscribe"}, "hub.verify_token": {w.token}, "hub.challenge": {"1"}}).Expect(403)
	w.challenge("asi_unknown", q).ExpectError(404, "not_found")
	e.Do("GET", "/hooks/telegram/"+w.asi+"?"+q.Encode(), "", nil).Expect(404) // another type, no such check

	ada := whatsapptest.Contact{WaID: "4915112345678", Name: "Ada Lovelace"}
	evil := srv.Payload(&ada, []map[string]any{whatsapptest.TextMessage(ada, "forged", time.Now())}, nil)
	w.post(evil, "").ExpectError(403, "permission_denied")
	w.post(evil, "not-the-app-secret").ExpectError(403, "permission_denied")
	w.e.Do("POST", "/hooks/whatsapp/asi_unknown", "", evil).Expect(404)
	w.e.Send(apitest.Invalid(w.postRequest(append(evil, make([]byte, 1<<20)...), appSecret))).Expect(413)

	w.post(srv.Payload(&ada, []map[string]any{whatsapptest.TextMessage(ada, "What are your opening hours?", time.Now())}, nil),
		appSecret).Expect(200)
	chatID := w.waitChat(t)
	e.Clock.Advance(time.Second) // the debounce: the assistant answers
	sent := srv.WaitSent(t, 1)
	if sent[0]["to"] != ada.WaID || sent[0]["type"] != "text" || !strings.Contains(sent[0].Text(), "nine to five") {
		t.Fatalf("the assistant's reply to WhatsApp: %v", sent[0])
	}
	msgs := w.messages(chatID)
	for _, m := range msgs {
		if strings.Contains(partsText(m), "forged") {
			t.Fatalf("a refused request left a message: %v", m)
		}
	}
	reply := msgs[len(msgs)-1]
	if reply["role"] != "assistant" || msgs[0]["role"] != "user" || partsText(msgs[0]) != "What are your opening hours?" {
		t.Fatalf("messages %v", msgs)
	}
	d := w.delivery(t, chatID, reply["id"].(string), "SENT")
	if d["external_id"] != sent[0].ID() {
		t.Fatalf("delivery %v, want external_id %s", d, sent[0].ID())
	}
	cts := e.Do("GET", "/orgs/c/contacts", e.AdminKey, nil).Expect(200).List()
	if len(cts) != 1 {
		t.Fatalf("contacts %v", cts)
	}
	ch := cts[0]["channels"].([]any)[0].(map[string]any)
	if cts[0]["name"] != "Ada Lovelace" || ch["type"] != "whatsapp" || ch["user_id"] != ada.WaID || ch["phone"] != "+"+ada.WaID {
		t.Fatalf("contact %v", cts[0])
	}

	for _, st := range []string{"delivered", "read"} {
		w.post(srv.Payload(nil, nil, []map[string]any{whatsapptest.Status(sent[0].ID(), st, ada.WaID, time.Now(), 0, "")}),
			appSecret).Expect(200)
		w.delivery(t, chatID, reply["id"].(string), strings.ToUpper(st))
	}

	// A member's reply that Meta later reports failed carries Meta's error title.
	mine := w.memberSays(chatID, text("A colleague will call you back."))
	sent = srv.WaitSent(t, 2)
	if sent[1].Text() != "A colleague will call you back." {
		t.Fatalf("member reply %v", sent[1])
	}
	w.delivery(t, chatID, mine, "SENT")
	w.post(srv.Payload(nil, nil, []map[string]any{whatsapptest.Status(sent[1].ID(), "failed", ada.WaID, time.Now(), 131026,
		"Message undeliverable")}), appSecret).Expect(200)
	if d := w.delivery(t, chatID, mine, "FAILED"); d["error"] != "WhatsApp: Message undeliverable (code 131026)" {
		t.Fatalf("failed delivery %v", d)
	}
}

// TestWhatsAppHookIsRateLimited: the verification GET and the POST share the API's per-IP
// budget (http.rate_limit_per_minute): past it, 429 with Retry-After, even with the right
// token.
func TestWhatsAppHookIsRateLimited(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, func(c *cli.Config) { c.HTTP.RateLimitPerMinute = 10 })
	asst := e.Do("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": "A"}).Expect(201).Map()["id"].(string)
	d := e.Do("POST", "/orgs/c/assistants/"+asst+"/integrations", e.AdminKey, map[string]any{"integration_id": "whatsapp",
		"name": "w", "config": map[string]any{"phone_number_id": "1", "waba_id": "2"},
		"secrets": map[string]string{"access_token": "a", "app_secret": "b"}}).Expect(201).Map()
	q := url.Values{"hub.mode": {"subscribe"}, "hub.challenge": {"42"},
		"hub.verify_token": {d["config"].(map[string]any)["verify_token"].(string)}}
	for i := 0; ; i++ {
		res := e.Do("GET", "/hooks/whatsapp/"+d["id"].(string)+"?"+q.Encode(), "", nil)
		if res.Status == 429 {
			if res.Header.Get("Retry-After") == "" || i == 0 {
				t.Fatalf("429 after %d answers, Retry-After %q", i, res.Header.Get("Retry-After"))
			}
			break
		}
		res.Expect(200)
		if i > 10 {
			t.Fatal("no 429 past the per-IP budget")
		}
	}
	e.Do("POST", "/hooks/whatsapp/"+d["id"].(string), "", []byte(`{}`)).Expect(429)
}
