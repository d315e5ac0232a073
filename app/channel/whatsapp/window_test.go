package whatsapp_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/app/channel/whatsapp/whatsapptest"
)

// TestWhatsAppWindowTemplatesAndMedia: a contact's image and document land as chat files,
// an interactive reply as its title and id; 25 hours after the contact's last message a
// member's free-form reply fails before Meta is asked, saying why, and Meta's own 131047
// fails the same way; an approved template goes out; templates are refused where they
// cannot be sent; a member's attachment is uploaded and sent as a document; another
// organization's chat and integration are 404.
func TestWhatsAppWindowTemplatesAndMedia(t *testing.T) {
	t.Parallel()
	w := newWA(t, apitest.NoRuns)
	e, srv := w.e, w.srv
	ada := whatsapptest.Contact{WaID: "447700900123", Name: "Ada"}

	img := srv.AddMedia(whatsapptest.File{MimeType: "image/jpeg", Data: []byte("\xff\xd8\xff jpeg bytes")})
	pdf := srv.AddMedia(whatsapptest.File{MimeType: "application/pdf", Data: []byte("%PDF-1.7 bill")})
	w.post(srv.Payload(&ada, []map[string]any{
		whatsapptest.MediaMessage(ada, "image", img, "image/jpeg", "my broken lamp", "", time.Now()),
		whatsapptest.MediaMessage(ada, "document", pdf, "application/pdf", "", "bill.pdf", time.Now()),
		whatsapptest.ButtonReply(ada, "refund-yes", "Yes, refund me", time.Now()),
	}, nil), appSecret).Expect(200)
	chatID := w.waitChat(t)
	e.Eventually(10*time.Second, "three contact messages", func() bool { return len(w.messages(chatID)) == 3 })
	var files []map[string]any
	e.Do("GET", "/orgs/c/chats/"+chatID+"/files", e.AdminKey, nil).Expect(200).JSON(&files)
	got := map[string]map[string]any{}
	for _, f := range files {
		got[f["file_mimetype"].(string)] = f
	}
	if len(files) != 2 || got["application/pdf"]["file_filename"] != "bill.pdf" || got["image/jpeg"] == nil ||
		got["image/jpeg"]["file_size"] != float64(len("\xff\xd8\xff jpeg bytes")) {
		t.Fatalf("chat files %v", files)
	}
	msgs := w.messages(chatID)
	if partsText(msgs[0]) != "my broken lampwhatsapp-"+img+".jpg" || partsText(msgs[2]) != "Yes, refund me [refund-yes]" {
		t.Fatalf("contact messages %q, %q", partsText(msgs[0]), partsText(msgs[2]))
	}

	// Inside the window (23 h 59 min): a free-form reply goes out.
	e.Clock.Advance(24*time.Hour - time.Minute)
	inside := w.memberSays(chatID, text("Sorry about the lamp."))
	w.delivery(t, chatID, inside, "SENT")
	srv.WaitSent(t, 1)
	// A member's attachment (a file of the chat) is uploaded and sent as a document.
	att := w.memberSays(chatID, map[string]any{"type": "audio", "audio": map[string]any{"id": got["application/pdf"]["id"]}})
	w.delivery(t, chatID, att, "SENT")
	doc := srv.WaitSent(t, 2)[1]
	media, _ := doc["document"].(map[string]any)
	up, ok := srv.Media(fmt.Sprint(media["id"]))
	if doc["type"] != "document" || media["filename"] != "bill.pdf" || !ok || string(up.Data) != "%PDF-1.7 bill" {
		t.Fatalf("attachment sent as %v (uploaded %v)", doc, up)
	}

	// Past 24 hours: refused before Meta is asked.
	e.Clock.Advance(time.Minute + time.Second)
	late := w.memberSays(chatID, text("Are you still there?"))
	d := w.delivery(t, chatID, late, "FAILED")
	if msg, _ := d["error"].(string); !strings.Contains(msg, "24 hours") || !strings.Contains(msg, "template") {
		t.Fatalf("late reply delivery %v", d)
	}
	if n := len(srv.Sent()); n != 2 {
		t.Fatalf("Meta was asked %d times, want 2 (the late reply never leaves)", n)
	}

	// A template goes out at any time, with its components.
	tpl := map[string]any{"type": "template", "template": map[string]any{"name": "lamp_follow_up", "language": "en_US",
		"components": []any{map[string]any{"type": "body", "parameters": []any{map[string]any{"type": "text", "text": "Ada"}}}}}}
	tm := w.memberSays(chatID, tpl)
	w.delivery(t, chatID, tm, "SENT")
	body := srv.WaitSent(t, 3)[2]
	sentTpl, _ := body["template"].(map[string]any)
	if body["type"] != "template" || sentTpl["name"] != "lamp_follow_up" ||
		sentTpl["language"].(map[string]any)["code"] != "en_US" || len(sentTpl["components"].([]any)) != 1 {
		t.Fatalf("template sent as %v", body)
	}

	// Meta's own window error (its clock, not ours, closed it: the contact just wrote) fails the same way.
	w.post(srv.Payload(&ada, []map[string]any{whatsapptest.TextMessage(ada, "hello again", time.Now())}, nil), appSecret).Expect(200)
	e.Eventually(10*time.Second, "the contact's new message", func() bool { return len(w.messages(chatID)) == 8 })
	srv.CloseWindow(ada.WaID)
	refused := w.memberSays(chatID, text("Welcome back!"))
	if d := w.delivery(t, chatID, refused, "FAILED"); !strings.Contains(d["error"].(string), "131047") {
		t.Fatalf("Meta's 131047: %v", d)
	}

	// Where a template cannot go: from the contact's side, in a chat of another channel, bad shapes.
	e.Do("POST", "/orgs/c/chats/"+chatID+"/messages", e.AdminKey, map[string]any{"role": "user",
		"messages": []map[string]any{{"role": "user", "parts": []any{tpl}}}}).ExpectError(400, "invalid_argument", "messages[0].parts[0]")
	var other map[string]any
	e.Do("POST", "/orgs/c/chats", e.AdminKey, map[string]any{}).Expect(201).JSON(&other)
	e.Do("POST", "/orgs/c/chats/"+other["id"].(string)+"/messages", e.AdminKey, map[string]any{"role": "admin",
		"messages": []map[string]any{{"role": "admin", "parts": []any{tpl}}}}).ExpectError(400, "invalid_argument", "messages[0].parts[0]")
	e.DoInvalid("POST", "/orgs/c/chats/"+chatID+"/messages", e.AdminKey, map[string]any{"role": "admin",
		"messages": []map[string]any{{"role": "admin", "parts": []any{map[string]any{"type": "template",
			"template": map[string]any{"name": "Bad Name", "language": "english"}}}}}}).
		ExpectError(400, "invalid_argument", "messages[0].parts[0].template.name", "messages[0].parts[0].template.language")

	// Another organization sees neither the chat nor the integration.
	_, otherKey := e.OrgWithAdmin("Other")
	e.Do("GET", "/orgs/c/chats/"+chatID, otherKey, nil).Expect(404)
	e.Do("GET", "/orgs/c/assistants/"+w.asst+"/integrations/"+w.asi, otherKey, nil).Expect(404)
}
