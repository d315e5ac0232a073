package api_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"mime/multipart"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

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
