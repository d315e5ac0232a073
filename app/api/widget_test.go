package api_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// widgetEnv is an assistant that knows the opening hours, deployed as a widget.
type widgetEnv struct {
	e         *apitest.Env
	asst, asi string
	key       string // the widget's secret_key
}

func newWidget(t *testing.T, config map[string]any, configure ...func(*cli.Config)) *widgetEnv {
	if config == nil {
		config = map[string]any{}
	}
	t.Helper()
	e := apitest.New(t, configure...)
	w := &widgetEnv{e: e}
	w.asst = newAssistant(t, e, e.AdminKey, map[string]any{"name": "Aria Helper", "config": map[string]any{
		"conversation": map[string]any{"welcome_banner": "Hi! Ask us anything.",
			"suggested_messages": []string{"What are your opening hours?"}}}})
	var k map[string]any
	e.Do("POST", "/orgs/c/assistants/"+w.asst+"/knowledge/contents", e.AdminKey, map[string]any{"title": "Hours",
		"content": map[string]any{"type": "TEXT", "text": "Our opening hours are nine to five, Monday to Friday."}}).Expect(201).JSON(&k)
	e.Eventually(20*time.Second, "knowledge processed", func() bool {
		var got map[string]any
		e.Do("GET", "/orgs/c/assistants/"+w.asst+"/knowledge/contents/"+k["id"].(string), e.AdminKey, nil).Expect(200).JSON(&got)
		return got["status"] == "PROCESSED"
	})
	var d map[string]any
	e.Do("POST", asiPath(w.asst), e.AdminKey, map[string]any{"integration_id": "internal", "name": "Site", "config": config}).
		Expect(201).JSON(&d)
	w.asi, w.key = d["id"].(string), d["secret_key"].(string)
	return w
}

func (w *widgetEnv) api(rest string) string { return "/widget/" + w.asi + "/api" + rest }

// visitor calls the visitor API with a session token.
func (w *widgetEnv) visitor(method, path, token string, body any) *apitest.Response {
	return w.e.Send(w.visitorRequest(method, path, token, body))
}

// visitorInvalid is visitor for a request that breaks the document on purpose.
func (w *widgetEnv) visitorInvalid(method, path, token string, body any) *apitest.Response {
	return w.e.Send(apitest.Invalid(w.visitorRequest(method, path, token, body)))
}

func (w *widgetEnv) visitorRequest(method, path, token string, body any) *http.Request {
	req := w.e.Request(method, w.api(path), "", body)
	if token != "" {
		req.Header.Set("X-Session-Token", token)
	}
	req.Header.Set("User-Agent", "WidgetTest/1.0")
	req.Header.Set("Accept-Language", "fr-CH, fr;q=0.9")
	return req
}

func (w *widgetEnv) start(t *testing.T, body map[string]any) (token string, session map[string]any) {
	t.Helper()
	var s map[string]any
	w.visitor("POST", "/session", "", body).Expect(201).JSON(&s)
	return s["token"].(string), s
}

// nextOf skips the stream's events up to the next of type typ.
func nextOf(s *apitest.SSEStream, typ string) apitest.SSEEvent {
	for {
		if ev := s.Next(); ev.Type == typ {
			return ev
		}
	}
}

func userHash(key, userID string) string {
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte(userID))
	return hex.EncodeToString(mac.Sum(nil))
}

// TestWidgetFiles: the loader is small (under 10 KB gzipped), revalidated by its hash; the
// page names its assets by hash and frames only in the allowed origins.
func TestWidgetFiles(t *testing.T) {
	t.Parallel()
	w := newWidget(t, map[string]any{"allowed_origins": []string{"https://shop.example", "http://localhost:8081"}})
	e := w.e
	res := e.Do("GET", "/widget.js", "", nil).Expect(200)
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") || res.Header.Get("ETag") == "" {
		t.Fatalf("loader headers %v", res.Header)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(res.Body)
	zw.Close()
	if gz.Len() >= 10<<10 {
		t.Errorf("loader is %d bytes gzipped", gz.Len())
	}
	req := e.Request("GET", "/widget.js", "", nil)
	req.Header.Set("If-None-Match", res.Header.Get("ETag"))
	e.Send(req).Expect(304)

	page := e.Do("GET", "/widget/"+w.asi, "", nil).Expect(200)
	csp := page.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "frame-ancestors https://shop.example http://localhost:8081") || !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP %q", csp)
	}
	assets := regexp.MustCompile(`/widget-assets/frame\.[0-9a-f]{12}\.(js|css)`).FindAllString(string(page.Body), -1)
	if len(assets) != 2 {
		t.Fatalf("page assets %v in %s", assets, page.Body)
	}
	for _, a := range assets {
		r := e.Do("GET", a, "", nil).Expect(200)
		if !strings.Contains(r.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: Cache-Control %q", a, r.Header.Get("Cache-Control"))
		}
	}
	e.Do("GET", "/widget-assets/frame.000000000000.js", "", nil).Expect(404)
	e.Do("GET", "/widget/asi_unknown", "", nil).Expect(404)
}

// TestWidgetConversation: a visitor writes, the assistant's answer streams to the visitor's
// stream and is delivered (message.delivery on the organization's stream), a member's reply
// reaches the visitor live, and the chat carries its integration for the inbox.
func TestWidgetConversation(t *testing.T) {
	t.Parallel()
	w := newWidget(t, nil)
	e := w.e
	token, s := w.start(t, map[string]any{})
	if s["chat"] != nil || s["widget"].(map[string]any)["welcome_banner"] != "Hi! Ask us anything." {
		t.Fatalf("session %v", s)
	}
	// The anonymous visitor's contact: an internal channel with the browser's agent, ip, language.
	var ct map[string]any
	e.Do("GET", "/orgs/c/contacts/"+s["session"].(map[string]any)["contact_id"].(string), e.AdminKey, nil).Expect(200).JSON(&ct)
	ch := ct["channels"].([]any)[0].(map[string]any)
	if ch["type"] != "internal" || ch["agent"] != "WidgetTest/1.0" || ch["language"] != "fr-CH" || ch["ip"] != "127.0.0.1" {
		t.Errorf("visitor channel %v", ch)
	}

	var sent map[string]any
	w.visitor("POST", "/messages", token, map[string]any{"text": "What are your opening hours?"}).Expect(201).JSON(&sent)
	chatID := sent["chat"].(map[string]any)["id"].(string)
	var chat map[string]any
	e.Do("GET", "/orgs/c/chats/"+chatID, e.AdminKey, nil).Expect(200).JSON(&chat)
	st := chat["state"].(map[string]any)
	var contactMember map[string]any
	for _, m := range chat["members"].([]any) {
		if m.(map[string]any)["contact_channel"] != nil {
			contactMember = m.(map[string]any)
		}
	}
	if contactMember["session"].(map[string]any)["id"] != s["session"].(map[string]any)["id"] {
		t.Errorf("the chat's contact member carries session %v, want the widget session %v", contactMember["session"], s["session"])
	}
	if st["assistant_integration_id"] != w.asi || st["assistant_id"] != w.asst || st["integration_id"] != "internal" ||
		st["assistant_integration"].(map[string]any)["id"] != w.asi || st["assistant_integration"].(map[string]any)["enabled"] != true {
		t.Fatalf("chat state %v", st)
	}
	var inbox []map[string]any
	e.Do("GET", "/orgs/c/inbox?assistant_integration_id="+w.asi, e.AdminKey, nil).Expect(200).JSON(&inbox)
	if len(inbox) != 1 || inbox[0]["id"] != chatID {
		t.Fatalf("inbox filter: %v", inbox)
	}

	org := e.Stream("/orgs/c/events/stream?types=message.delivery", e.AdminKey, "")
	defer org.Close()
	vs := e.Stream(w.api("/stream?token="+token+"&chat_id="+chatID), "", "")
	defer vs.Close()
	vs.Expect("sync")
	e.Clock.Advance(time.Second) // the debounce: the assistant answers
	var running map[string]any
	vs.Expect("message.created").JSON(t, &running)
	if running["role"] != "assistant" || running["status"] != "RUNNING" {
		t.Fatalf("first event %v", running)
	}
	var text strings.Builder
	for {
		ev := vs.Next()
		if ev.Type == "message.delta" {
			text.WriteString(ev.Map(t)["text"].(string))
			continue
		}
		if ev.Type == "message.updated" && ev.Map(t)["status"] == "COMPLETED" {
			if done := ev.Map(t)["text"].(string); !strings.Contains(done, "nine to five") || !strings.HasPrefix(done, text.String()) {
				t.Fatalf("answer %q after deltas %q", done, text.String())
			}
			if _, leaked := ev.Map(t)["usage"]; leaked {
				t.Fatalf("visitor view carries usage: %v", ev.Map(t))
			}
			break
		}
	}
	var change map[string]any
	org.Expect("message.delivery").JSON(t, &change)
	if change["message_id"] != running["id"] || change["delivery"].(map[string]any)["status"] != "DELIVERED" {
		t.Fatalf("delivery event %v", change)
	}
	var msgs []map[string]any
	e.Do("GET", "/orgs/c/chats/"+chatID+"/messages", e.AdminKey, nil).Expect(200).JSON(&msgs)
	last := msgs[len(msgs)-1]
	if d, _ := last["delivery"].(map[string]any); d == nil || d["status"] != "DELIVERED" || d["external_id"] != last["id"] {
		t.Fatalf("assistant message delivery %v", last["delivery"])
	}
	if msgs[0]["delivery"] != nil {
		t.Errorf("the visitor's own message has a delivery: %v", msgs[0]["delivery"])
	}

	// A member takes over and replies: the visitor sees the handoff and the reply live.
	e.Do("PATCH", "/orgs/c/chats/"+chatID, e.AdminKey, map[string]any{"assigned_user_id": e.Owner.ID}).Expect(200)
	var upd map[string]any
	nextOf(vs, "chat.updated").JSON(t, &upd)
	if upd["handed_off"] != true {
		t.Errorf("chat after handoff %v", upd)
	}
	e.Do("POST", "/orgs/c/chats/"+chatID+"/messages", e.AdminKey, map[string]any{"role": "admin",
		"messages": []map[string]any{{"role": "admin", "parts": []map[string]any{{"type": "text", "text": "Hello from the team"}}}}}).Expect(201)
	for {
		ev := vs.Next()
		if ev.Type != "message.created" {
			continue
		}
		m := ev.Map(t)
		if m["role"] != "admin" || m["text"] != "Hello from the team" || m["author"] != strings.Fields(e.Owner.Name)[0] {
			t.Fatalf("member reply %v", m)
		}
		break
	}
	org.Expect("message.delivery")

	var list []map[string]any
	w.visitor("GET", "/messages", token, nil).Expect(200).JSON(&list)
	if len(list) != 3 || list[0]["role"] != "user" || list[2]["text"] != "Hello from the team" {
		t.Fatalf("visitor messages %v", list)
	}
	var again map[string]any
	w.visitor("GET", "/session", token, nil).Expect(200).JSON(&again)
	if again["chat"].(map[string]any)["id"] != chatID || again["token"] != nil {
		t.Fatalf("session again %v", again)
	}
}

// TestWidgetVisitorIsolation: a visitor reads only its own chats; a token of one widget is
// nothing on another; bad tokens are 401; another organization's widget is only 404.
func TestWidgetVisitorIsolation(t *testing.T) {
	t.Parallel()
	w := newWidget(t, nil, apitest.NoRuns)
	e := w.e
	a, _ := w.start(t, map[string]any{})
	b, _ := w.start(t, map[string]any{})
	var sent map[string]any
	w.visitor("POST", "/messages", a, map[string]any{"text": "mine"}).Expect(201).JSON(&sent)
	chatID := sent["chat"].(map[string]any)["id"].(string)
	w.visitor("GET", "/messages?chat_id="+chatID, b, nil).Expect(404)
	e.Do("GET", w.api("/stream?token="+b+"&chat_id="+chatID), "", nil).Expect(404)
	w.visitor("GET", "/messages", b, nil).Expect(404) // b has no chat yet
	w.visitor("GET", "/session", "wst_nope", nil).Expect(401)
	w.visitorInvalid("GET", "/session", "", nil).Expect(401)
	w.visitor("POST", "/messages", e.AdminKey, map[string]any{"text": "x"}).Expect(401)

	// Another widget (of another organization) does not know a's token.
	o, key := e.OrgWithAdmin("Other")
	other := newAssistant(t, e, key, map[string]any{"name": "Other"})
	var d map[string]any
	e.Do("POST", asiPath(other), key, map[string]any{"integration_id": "internal", "name": "x"}).Expect(201).JSON(&d)
	req := e.Request("GET", "/widget/"+d["id"].(string)+"/api/session", "", nil)
	req.Header.Set("X-Session-Token", a)
	e.Send(req).Expect(401)
	_ = o
	e.Do("POST", "/widget/asi_missing/api/session", "", map[string]any{}).Expect(404)
}

// TestWidgetTextBounds: text of 4,000 characters passes, 4,001 and blank are 400, a body
// over 32 KiB is 413; nothing is stored for a refused message.
func TestWidgetTextBounds(t *testing.T) {
	t.Parallel()
	w := newWidget(t, nil, apitest.NoRuns)
	tok, _ := w.start(t, map[string]any{})
	w.visitor("POST", "/messages", tok, map[string]any{"text": strings.Repeat("é", 4000)}).Expect(201)
	w.visitorInvalid("POST", "/messages", tok, map[string]any{"text": strings.Repeat("é", 4001)}).Expect(400)
	w.visitorInvalid("POST", "/messages", tok, map[string]any{"text": "   "}).Expect(400)
	w.visitorInvalid("POST", "/messages", tok, map[string]any{"text": "x", "role": "admin"}).Expect(400)
	w.visitorInvalid("POST", "/messages", tok, `{"text":"`+strings.Repeat("a", 33<<10)+`"}`).Expect(413)
	var list []any
	w.visitor("GET", "/messages", tok, nil).Expect(200).JSON(&list)
	if len(list) != 1 {
		t.Fatalf("%d messages stored, want 1", len(list))
	}
}

// TestWidgetIdentity: a verified user is one contact on every device and sees earlier
// conversations; a wrong hash is refused; require_identity refuses anonymous visitors; a
// rotated key refuses hashes made with the old one.
func TestWidgetIdentity(t *testing.T) {
	t.Parallel()
	w := newWidget(t, map[string]any{"require_identity": true}, apitest.NoRuns)
	res := w.visitor("POST", "/session", "", map[string]any{}).Expect(403)
	if !strings.Contains(string(res.Body), "requires an identified visitor") {
		t.Errorf("anonymous: %s", res.Body)
	}
	hash := userHash(w.key, "user-42")
	bad := []map[string]any{
		{"user_id": "user-42", "user_hash": userHash(w.key, "user-43")},
		{"user_id": "user-42", "user_hash": "zz"},
		{"user_id": "user-42"},
		{"user_id": "user-42", "user_hash": strings.ToUpper(hash[:10]) + otherHexDigit(hash[10]) + hash[11:]},
	}
	for _, b := range bad {
		w.visitor("POST", "/session", "", b).Expect(403)
	}
	if n := w.e.Count(w.e.AdminKey, "/orgs/c/contacts"); n != 0 {
		t.Fatalf("refused visitors made %d contacts", n)
	}
	who := map[string]any{"user_id": "user-42", "user_hash": hash, "name": "Ada Lovelace", "email": "ada@example.com"}
	laptop, s1 := w.start(t, who)
	var sent map[string]any
	w.visitor("POST", "/messages", laptop, map[string]any{"text": "from my laptop"}).Expect(201).JSON(&sent)
	phone, s2 := w.start(t, who)
	c1, c2 := s1["session"].(map[string]any), s2["session"].(map[string]any)
	if c1["contact_id"] != c2["contact_id"] || c2["identified"] != true || s2["chat"].(map[string]any)["id"] != sent["chat"].(map[string]any)["id"] {
		t.Fatalf("second device: %v, first: %v", s2, s1)
	}
	var list []map[string]any
	w.visitor("GET", "/messages", phone, nil).Expect(200).JSON(&list)
	if len(list) != 1 || list[0]["text"] != "from my laptop" {
		t.Fatalf("earlier conversation on the phone: %v", list)
	}
	var ct map[string]any
	w.e.Do("GET", "/orgs/c/contacts/"+c1["contact_id"].(string), w.e.AdminKey, nil).Expect(200).JSON(&ct)
	if ct["name"] != "Ada Lovelace" {
		t.Errorf("identified contact %v", ct)
	}
	var rot map[string]any
	w.e.Do("POST", asiPath(w.asst, "/", w.asi, "/rotate"), w.e.AdminKey, nil).Expect(200).JSON(&rot)
	w.visitor("POST", "/session", "", who).Expect(403)
	who["user_hash"] = userHash(rot["secret_key"].(string), "user-42")
	w.visitor("POST", "/session", "", who).Expect(201)
}

// TestWidgetRateLimits: each budget at its edge (429 with Retry-After one past it), and the
// open-stream cap refuses a stream instead of holding it.
func TestWidgetRateLimits(t *testing.T) {
	t.Parallel()
	w := newWidget(t, nil, apitest.NoRuns, func(c *cli.Config) {
		c.Channels.Widget.SessionsPerMinutePerIP = 3
		c.Channels.Widget.MessagesPerMinutePerSession = 2
		c.Channels.Widget.StreamsPerIP = 1
	})
	toks := []string{}
	for range 3 {
		tok, _ := w.start(t, map[string]any{})
		toks = append(toks, tok)
	}
	res := w.visitor("POST", "/session", "", map[string]any{}).Expect(429)
	if res.Header.Get("Retry-After") == "" {
		t.Errorf("no Retry-After")
	}
	w.visitor("POST", "/messages", toks[0], map[string]any{"text": "1"}).Expect(201)
	w.visitor("POST", "/messages", toks[0], map[string]any{"text": "2"}).Expect(201)
	w.visitor("POST", "/messages", toks[0], map[string]any{"text": "3"}).Expect(429)
	w.visitor("POST", "/messages", toks[1], map[string]any{"text": "other session"}).Expect(201)
	w.e.Clock.Advance(31 * time.Second) // a token back
	w.visitor("POST", "/messages", toks[0], map[string]any{"text": "3"}).Expect(201)

	s := w.e.Stream(w.api("/stream?token="+toks[0]), "", "")
	defer s.Close()
	s.Expect("sync")
	res = w.e.Do("GET", w.api("/stream?token="+toks[1]), "", nil).Expect(429)
	if res.Header.Get("Retry-After") == "" {
		t.Errorf("stream 429 without Retry-After")
	}
}

// TestWidgetDisabledIntegration: a disabled widget still takes messages into the inbox; the
// assistant does not answer them.
func TestWidgetDisabledIntegration(t *testing.T) {
	t.Parallel()
	w := newWidget(t, nil)
	e := w.e
	e.Do("PATCH", asiPath(w.asst, "/", w.asi), e.AdminKey, map[string]any{"enabled": false}).Expect(200)
	tok, _ := w.start(t, map[string]any{})
	var sent map[string]any
	w.visitor("POST", "/messages", tok, map[string]any{"text": "anyone?"}).Expect(201).JSON(&sent)
	chatID := sent["chat"].(map[string]any)["id"].(string)
	var chat map[string]any
	e.Do("GET", "/orgs/c/chats/"+chatID, e.AdminKey, nil).Expect(200).JSON(&chat)
	if chat["state"].(map[string]any)["assistant_integration"].(map[string]any)["enabled"] != false {
		t.Fatalf("state %v", chat["state"])
	}
	e.Clock.Advance(2 * time.Second)
	time.Sleep(200 * time.Millisecond) // a run, were one started, would show at once
	var msgs []map[string]any
	e.Do("GET", "/orgs/c/chats/"+chatID+"/messages", e.AdminKey, nil).Expect(200).JSON(&msgs)
	if len(msgs) != 1 {
		t.Fatalf("disabled widget answered: %v", msgs)
	}
	// Enabled again, the chat's cached state follows.
	e.Do("PATCH", asiPath(w.asst, "/", w.asi), e.AdminKey, map[string]any{"enabled": true}).Expect(200)
	e.Do("GET", "/orgs/c/chats/"+chatID, e.AdminKey, nil).Expect(200).JSON(&chat)
	if chat["state"].(map[string]any)["assistant_integration"].(map[string]any)["enabled"] != true {
		t.Fatalf("state after enabling %v", chat["state"])
	}
}

// TestMessageCreatedWebhook: a member's reply on a custom chat reaches a local HTTPS
// receiver as message.created, signed, with the message, chat, integration and contact.
func TestMessageCreatedWebhook(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.NoRuns)
	rcv := apitest.NewReceiver(t)
	hook := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventMessageCreated)
	ct := chContact(e, e.AdminKey, "c", "Bridge user", map[string]any{"type": "custom", "user_id": "ext-1"})
	chat := chChat(e, e.AdminKey, "c", map[string]any{"contact_id": ct["id"]})
	// The contact's own message is no reply to deliver: no event.
	e.Do("POST", "/orgs/c/chats/"+chat["id"].(string)+"/messages", e.AdminKey, map[string]any{"role": "user",
		"messages": []map[string]any{{"role": "user", "parts": []map[string]any{{"type": "text", "text": "hi"}}}}}).Expect(201)
	var m map[string]any
	e.Do("POST", "/orgs/c/chats/"+chat["id"].(string)+"/messages", e.AdminKey, map[string]any{"role": "admin",
		"messages": []map[string]any{{"role": "admin", "parts": []map[string]any{{"type": "text", "text": "Your order shipped"}}}}}).Expect(201).JSON(&m)
	got := rcv.Wait(t, 1, 10*time.Second)[0]
	ts := got.Header.Get("x-webhook-timestamp")
	mac := hmac.New(sha256.New, []byte(hook.Secret))
	mac.Write([]byte(got.Header.Get("x-webhook-id") + "." + ts + "." + string(got.Body)))
	if want := "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil)); got.Header.Get("x-webhook-signature") != want {
		t.Fatalf("signature %q, want %q", got.Header.Get("x-webhook-signature"), want)
	}
	var env struct {
		Type string
		Data struct {
			Message       map[string]any
			ChatID        string `json:"chat_id"`
			IntegrationID string `json:"integration_id"`
			ContactID     string `json:"contact_id"`
		}
	}
	if err := json.Unmarshal(got.Body, &env); err != nil {
		t.Fatal(err)
	}
	if env.Type != "message.created" || env.Data.ChatID != chat["id"] || env.Data.IntegrationID != "custom" ||
		env.Data.ContactID != ct["id"] || env.Data.Message["id"] != m["id"] {
		t.Fatalf("envelope %s", got.Body)
	}
	rcv.Quiet(t, 1, 300*time.Millisecond)
	var types []map[string]any
	e.Do("GET", "/orgs/c/webhooks/events", e.AdminKey, nil).Expect(200).JSON(&types)
	found := false
	for _, ty := range types {
		found = found || ty["type"] == "message.created"
	}
	if !found {
		t.Errorf("message.created is not listed as subscribable: %v", types)
	}
}

// TestWidgetChatIsACustomerConversation: a widget chat (integration internal, with a
// contact) is no workspace chat: assigning it emits chat.assigned.
func TestWidgetChatIsACustomerConversation(t *testing.T) {
	t.Parallel()
	w := newWidget(t, nil, apitest.NoRuns)
	tok, _ := w.start(t, map[string]any{})
	var sent map[string]any
	w.visitor("POST", "/messages", tok, map[string]any{"text": "help"}).Expect(201).JSON(&sent)
	org := w.e.Stream("/orgs/c/events/stream?types=chat.assigned", w.e.AdminKey, "")
	defer org.Close()
	chatID := sent["chat"].(map[string]any)["id"].(string)
	w.e.Do("PATCH", "/orgs/c/chats/"+chatID, w.e.AdminKey, map[string]any{"assigned_user_id": w.e.Owner.ID}).Expect(200)
	if got := org.Expect("chat.assigned").Map(t); got["id"] != chatID {
		t.Fatalf("chat.assigned for %v, want %s", got["id"], chatID)
	}
}

// TestWidgetFileUpload: a file of 10 MiB is the visitor's message and a file of its chat; one
// byte more is 413 and stores nothing; a client cannot forge a file part through the API.
func TestWidgetFileUpload(t *testing.T) {
	t.Parallel()
	w := newWidget(t, nil, apitest.NoRuns, apitest.Unlimited)
	tok, _ := w.start(t, map[string]any{})
	upload := func(name string, size int) *apitest.Response {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		fw, _ := mw.CreateFormFile("file", name)
		fw.Write(bytes.Repeat([]byte("%PDF-1.4 "), size/9+1)[:size])
		mw.Close()
		req := w.e.Request("POST", w.api("/files"), "", b.Bytes())
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("X-Session-Token", tok)
		return w.e.Send(req)
	}
	upload("big.pdf", 10<<20+1).Expect(413)
	var sent map[string]any
	upload("../../etc/invoice.pdf", 10<<20).Expect(201).JSON(&sent)
	if msg := sent["message"].(map[string]any); msg["text"] != "[file: invoice.pdf]" || msg["role"] != "user" {
		t.Fatalf("file message %v", msg)
	}
	chatID := sent["chat"].(map[string]any)["id"].(string)
	var files []map[string]any
	w.e.Do("GET", "/orgs/c/chats/"+chatID+"/files", w.e.AdminKey, nil).Expect(200).JSON(&files)
	if len(files) != 1 || files[0]["file_filename"] != "invoice.pdf" || files[0]["file_size"] != float64(10<<20) ||
		files[0]["file_mimetype"] != "application/pdf" {
		t.Fatalf("chat files %v", files)
	}
	var msgs []map[string]any
	w.e.Do("GET", "/orgs/c/chats/"+chatID+"/messages", w.e.AdminKey, nil).Expect(200).JSON(&msgs)
	part := msgs[0]["messages"].([]any)[0].(map[string]any)["parts"].([]any)[0].(map[string]any)
	if part["type"] != "file" || part["file"].(map[string]any)["id"] != files[0]["id"] {
		t.Fatalf("file part %v", part)
	}
	w.e.DoInvalid("POST", "/orgs/c/chats/"+chatID+"/messages", w.e.AdminKey, map[string]any{"role": "admin",
		"messages": []map[string]any{{"role": "admin", "parts": []map[string]any{{"type": "file", "text": "x",
			"file": map[string]any{"id": "file_forged"}}}}}}).Expect(400)
	upload("", 10).Expect(400)
}

// TestWidgetRating: when a member resolves the chat of an assistant that asks for ratings,
// the visitor's stream shows the chat CLOSED and the rating question; the visitor's "5" is the
// chat's csat_score.
func TestWidgetRating(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.NoRuns)
	asst := newAssistant(t, e, e.AdminKey, map[string]any{"name": "Aria", "config": map[string]any{
		"conversation": map[string]any{"enable_auto_csat": true}}})
	var d map[string]any
	e.Do("POST", asiPath(asst), e.AdminKey, map[string]any{"integration_id": "internal", "name": "w"}).Expect(201).JSON(&d)
	w := &widgetEnv{e: e, asst: asst, asi: d["id"].(string)}
	tok, s := w.start(t, map[string]any{})
	if s["widget"].(map[string]any)["asks_rating"] != true {
		t.Fatalf("widget %v", s["widget"])
	}
	var sent map[string]any
	w.visitor("POST", "/messages", tok, map[string]any{"text": "thanks, all good"}).Expect(201).JSON(&sent)
	chatID := sent["chat"].(map[string]any)["id"].(string)
	vs := e.Stream(w.api("/stream?token="+tok), "", "")
	defer vs.Close()
	vs.Expect("sync")
	e.Do("PATCH", "/orgs/c/chats/"+chatID, e.AdminKey, map[string]any{"state": "CLOSED"}).Expect(200)
	var question, closed map[string]any
	for question == nil || closed == nil {
		switch ev := vs.Next(); ev.Type {
		case "message.created":
			question = ev.Map(t)
		case "chat.updated":
			if c := ev.Map(t); c["state"] == "CLOSED" {
				closed = c
			}
		}
	}
	if question["role"] != "assistant" || question["text"] != app.CSATQuestion {
		t.Fatalf("rating question %v", question)
	}
	if closed["csat_score"] != nil {
		t.Fatalf("closed chat %v", closed)
	}
	w.visitor("POST", "/messages", tok, map[string]any{"text": "5"}).Expect(201)
	var chat map[string]any
	e.Do("GET", "/orgs/c/chats/"+chatID, e.AdminKey, nil).Expect(200).JSON(&chat)
	if chat["state"].(map[string]any)["csat_score"] != float64(5) {
		t.Fatalf("csat_score %v", chat["state"].(map[string]any)["csat_score"])
	}
}

// TestWidgetStreamsHoldTheServersBudget: a visitor's stream holds a slot of the server's
// stream budget under its address, so the address's cap (events.max_streams_per_ip) covers
// visitor streams too.
func TestWidgetStreamsHoldTheServersBudget(t *testing.T) {
	t.Parallel()
	w := newWidget(t, nil, apitest.NoRuns, func(c *cli.Config) { c.Events.MaxStreamsPerIP = 1 })
	var toks []string
	for range 2 {
		tok, _ := w.start(t, map[string]any{})
		w.visitor("POST", "/messages", tok, map[string]any{"text": "hi"}).Expect(201)
		toks = append(toks, tok)
	}
	s := w.e.Stream(w.api("/stream?token="+toks[0]), "", "")
	s.Expect("sync")
	res := w.e.Do("GET", w.api("/stream?token="+toks[1]), "", nil).Expect(429)
	if !strings.Contains(string(res.Body), "this client address") || res.Header.Get("Retry-After") == "" {
		t.Fatalf("refusal %s %v", res.Body, res.Header)
	}
	s.Close()
	w.e.Eventually(5*time.Second, "the slot back", func() bool {
		req := w.e.Request("GET", w.api("/stream?token="+toks[1]), "", nil)
		ctx, cancel := context.WithTimeout(req.Context(), 300*time.Millisecond)
		defer cancel()
		res, err := http.DefaultClient.Do(req.WithContext(ctx))
		if err != nil {
			return false
		}
		defer res.Body.Close()
		return res.StatusCode == 200
	})
}

// otherHexDigit is a hex digit other than d, so a changed hash is always wrong (a fixed "0"
// left the hash right one time in sixteen).
func otherHexDigit(d byte) string {
	if d == '0' {
		return "1"
	}
	return "0"
}
