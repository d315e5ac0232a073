package api_test

import (
	"bytes"
	"compress/gzip"
	"regexp"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
)

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

// left the hash right one time in sixteen).
func otherHexDigit(d byte) string {
	if d == '0' {
		return "1"
	}
	return "0"
}
