package telegram_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestTelegramMediaBecomeChatFiles: a voice note, the largest size of a photo and a
// document are downloaded (getFile, then the file path) into chat files of the contact's
// message, with their bytes, names and types.
func TestTelegramMediaBecomeChatFiles(t *testing.T) {
	t.Parallel()
	w := newWorld(t, noRuns)
	voice := []byte("OggS voice note bytes")
	voiceID := w.tg.AddFile("voice/file_1.oga", voice)
	small, large := w.tg.AddFile("photos/small.jpg", []byte("small")), w.tg.AddFile("photos/large.jpg", []byte("the large photo"))
	doc := w.tg.AddFile("documents/file_3.pdf", []byte("%PDF-1.7 invoice"))

	w.post(t, w.hookPath(t), "", map[string]any{"update_id": 1, "message": message(1, map[string]any{
		"voice": map[string]any{"file_id": voiceID, "file_unique_id": "v1", "duration": 3, "mime_type": "audio/ogg", "file_size": len(voice)}})}).Expect(200)
	c := w.chat(t)
	w.post(t, w.hookPath(t), "", map[string]any{"update_id": 2, "message": message(2, map[string]any{
		"caption": "my invoice",
		"photo": []map[string]any{{"file_id": small, "file_unique_id": "s", "width": 90, "height": 60},
			{"file_id": large, "file_unique_id": "l", "width": 1280, "height": 853}},
		"document": map[string]any{"file_id": doc, "file_unique_id": "d", "file_name": "invoice.pdf", "mime_type": "application/pdf"}})}).Expect(200)
	chatID := c["id"].(string)
	var ms []map[string]any
	w.e.Eventually(10*time.Second, "both messages", func() bool { ms = w.messages(t, chatID); return len(ms) == 2 })

	var files []map[string]any
	w.e.Do("GET", "/orgs/c/chats/"+chatID+"/files", w.e.AdminKey, nil).Expect(200).JSON(&files)
	byName := map[string]map[string]any{}
	for _, f := range files {
		byName[f["file_filename"].(string)] = f
	}
	want := map[string][2]string{"voice.ogg": {"audio/ogg", string(voice)}, "photo.jpg": {"image/jpeg", "the large photo"},
		"invoice.pdf": {"application/pdf", "%PDF-1.7 invoice"}}
	for name, w2 := range want {
		f := byName[name]
		if f == nil || f["file_mimetype"] != w2[0] || int(f["file_size"].(float64)) != len(w2[1]) {
			t.Fatalf("file %s: %v (all: %v)", name, f, files)
		}
		body := w.e.Do("GET", "/orgs/c/chats/"+chatID+"/files/"+f["id"].(string), w.e.AdminKey, nil).Expect(200)
		if !bytes.Contains(body.Body, []byte(w2[1])) && !strings.Contains(string(body.Body), jsonString(w2[1])) {
			t.Fatalf("file %s holds %q", name, body.Body)
		}
	}
	if partText(ms[1], 0) != "my invoice" || len(ms[1]["messages"].([]any)[0].(map[string]any)["parts"].([]any)) != 3 {
		t.Fatalf("second message %v", ms[1]["messages"])
	}
	if calls := w.tg.Calls("getFile"); len(calls) != 3 {
		t.Fatalf("getFile calls %d, want 3 (the small photo is never fetched)", len(calls))
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

// TestTelegramHookRefusals: a wrong or missing secret token is 403 and stores nothing; an
// unknown integration, one of another type, another channel's path and a deleted one are
// the same 404; the body is bounded at 1 MiB (at the bound: taken; one byte more: 413).
func TestTelegramHookRefusals(t *testing.T) {
	t.Parallel()
	w := newWorld(t, noRuns)
	path := w.hookPath(t)
	w.post(t, path, "not-the-secret", textUpdate(1, "forged")).ExpectError(403, "permission_denied")
	w.post(t, path, "-", textUpdate(2, "unsigned")).ExpectError(403, "permission_denied")
	w.e.WaitIdle()
	if n := w.e.Count(w.e.AdminKey, "/orgs/c/inbox?assistant_integration_id="+w.asi); n != 0 {
		t.Fatalf("a refused update made %d chats", n)
	}

	var widget map[string]any
	w.e.Do("POST", w.base(), w.e.AdminKey, map[string]any{"integration_id": "internal", "name": "site"}).Expect(201).JSON(&widget)
	for _, p := range []string{"/hooks/telegram/asi_unknown", "/hooks/telegram/" + widget["id"].(string),
		"/hooks/whatsapp/" + w.asi, "/hooks/sms/" + w.asi} {
		w.post(t, p, "", textUpdate(3, "hello")).ExpectError(404, "not_found")
	}

	// The bound: a body of exactly 1 MiB (an update padded with spaces) is taken.
	update, _ := json.Marshal(textUpdate(4, "padded"))
	at := append(update, bytes.Repeat([]byte(" "), 1<<20-len(update))...)
	w.postRaw(t, path, at).Expect(200)
	w.postRaw(t, path, append(at, ' ')).ExpectError(413, "payload_too_large")
	w.chat(t)

	// Deleted: refused like an unknown one, and the bot's webhook is deleted at Telegram.
	w.e.Do("DELETE", w.path(""), w.e.AdminKey, nil).Expect(204)
	if len(w.tg.Calls("deleteWebhook")) != 1 || w.tg.Bot(w.token).Webhook != "" {
		t.Fatalf("deleteWebhook not called: %+v", w.tg.Bot(w.token))
	}
	w.e.Do("POST", path, "", textUpdate(5, "after delete")).ExpectError(404, "not_found")
}

// TestTelegramDownloadRetried: an update whose media cannot be fetched (the Bot API failing)
// is not lost: it is taken in again after the inbound schedule's first wait (5 s on the
// clock), file and all, once.
func TestTelegramDownloadRetried(t *testing.T) {
	t.Parallel()
	w := newWorld(t, noRuns)
	voice := w.tg.AddFile("voice/v.oga", []byte("ogg"))
	w.tg.Fail("getFile", 500, "Internal Server Error", 0)
	w.post(t, w.hookPath(t), "", map[string]any{"update_id": 1, "message": message(1, map[string]any{
		"voice": map[string]any{"file_id": voice, "file_unique_id": "v", "duration": 1}})}).Expect(200)
	w.e.WaitIdle()
	if n := w.e.Count(w.e.AdminKey, "/orgs/c/inbox?assistant_integration_id="+w.asi); n != 0 || len(w.tg.Calls("getFile")) != 1 {
		t.Fatalf("after a failed download: %d chats, %d getFile", n, len(w.tg.Calls("getFile")))
	}
	w.e.Clock.Advance(5 * time.Second)
	chatID := w.chat(t)["id"].(string)
	w.e.WaitIdle()
	if ms := w.messages(t, chatID); len(ms) != 1 || len(w.tg.Calls("getFile")) != 2 {
		t.Fatalf("after the retry: %d messages, %d getFile", len(ms), len(w.tg.Calls("getFile")))
	}
}
