package telegram_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"wsapi/app/channel/telegram"
	"wsapi/app/channel/telegram/telegramtest"
)

// openChat makes the contact write once and answers the chat's id.
func (w *world) openChat(t *testing.T) string {
	t.Helper()
	w.post(t, w.hookPath(t), "", textUpdate(1, "hello")).Expect(200)
	return w.chat(t)["id"].(string)
}

// deliveryIdle waits until the delivery worker recorded what its sends came to.
func (w *world) deliveryIdle(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.e.Runtime.Delivery.WaitIdle(ctx); err != nil {
		t.Fatalf("the delivery worker did not fall idle: %v", err)
	}
}

// TestTelegramWaitsOutRetryAfter: a 429 with parameters.retry_after holds the reply that
// long on the clock (using no attempt), then it goes out.
func TestTelegramWaitsOutRetryAfter(t *testing.T) {
	t.Parallel()
	w := newWorld(t, noRuns)
	chatID := w.openChat(t)
	w.tg.Fail("sendMessage", 429, "Too Many Requests: retry after 7", 7)
	id := w.reply(t, chatID, textPart("We open at nine."))
	w.waitCalls(t, "sendMessage", 1)
	w.deliveryIdle(t)
	w.e.Clock.Advance(6 * time.Second)
	w.deliveryIdle(t)
	if n := len(w.tg.Calls("sendMessage")); n != 1 {
		t.Fatalf("sent again %d times before retry_after passed", n-1)
	}
	w.e.Clock.Advance(time.Second)
	sent := w.waitCalls(t, "sendMessage", 2)
	if sent[1].Params["text"] != "We open at nine." {
		t.Fatalf("second try %+v", sent[1].Params)
	}
	if d := w.delivery(t, chatID, id, "SENT", ""); d["error"] != nil {
		t.Fatalf("delivery %v", d)
	}
}

// TestTelegramBlockedBotFails: a bot blocked by the user fails the reply at once with
// Telegram's reason.
func TestTelegramBlockedBotFails(t *testing.T) {
	t.Parallel()
	w := newWorld(t, noRuns)
	chatID := w.openChat(t)
	w.tg.Block("4242")
	id := w.reply(t, chatID, textPart("Are you there?"))
	w.delivery(t, chatID, id, "FAILED", "Forbidden: bot was blocked by the user")
	if n := len(w.tg.Calls("sendMessage")); n != 1 {
		t.Fatalf("%d sends for a blocked bot", n)
	}
}

// TestTelegramSplitsLongText: a reply over 4,096 characters goes out in pieces of at most
// 4,096 (Telegram's count, UTF-16 units), cut at line breaks, nothing lost; one of exactly
// 4,096 goes out whole.
func TestTelegramSplitsLongText(t *testing.T) {
	t.Parallel()
	w := newWorld(t, noRuns)
	chatID := w.openChat(t)
	para := strings.Repeat("é", 1999) + "\n"
	long := strings.Repeat(para, 5) + "😀 end" // 10,000+ characters, an emoji is two units
	w.reply(t, chatID, textPart(long))
	sent := w.waitCalls(t, "sendMessage", 3)
	var got []string
	for _, c := range sent {
		if telegramtest.Units(c.Params["text"]) > telegram.MaxText {
			t.Fatalf("a piece of %d units", telegramtest.Units(c.Params["text"]))
		}
		got = append(got, c.Params["text"])
	}
	if strings.Join(strings.Fields(strings.Join(got, "\n")), "") != strings.Join(strings.Fields(long), "") || len(got) != 3 {
		t.Fatalf("%d pieces do not add up to the text", len(got))
	}
	exact := strings.Repeat("a", telegram.MaxText)
	w.reply(t, chatID, textPart(exact))
	if sent := w.waitCalls(t, "sendMessage", 4); sent[3].Params["text"] != exact {
		t.Fatalf("a text of exactly 4,096 was cut")
	}
}

// TestSplitEdges: the cut never splits a character and takes the limit when there is no
// line break or space.
func TestSplitEdges(t *testing.T) {
	t.Parallel()
	pieces := telegram.Split(strings.Repeat("😀", 3000), telegram.MaxText) // 6,000 units
	if len(pieces) != 2 || telegramtest.Units(pieces[0]) != 4096 || telegramtest.Units(pieces[1]) != 6000-4096 {
		t.Fatalf("pieces of %d and %d units", telegramtest.Units(pieces[0]), telegramtest.Units(pieces[1]))
	}
	if p := telegram.Split("  ", telegram.MaxText); len(p) != 0 {
		t.Fatalf("blank text: %q", p)
	}
}

// TestTelegramSendsMembersFiles: a member's message that attaches files of the chat sends
// them with sendPhoto (an image), sendVoice (Ogg/Opus) or sendDocument (anything else), bytes
// and name intact, after the text.
func TestTelegramSendsMembersFiles(t *testing.T) {
	t.Parallel()
	w := newWorld(t, noRuns)
	ogg, err := os.ReadFile("../../voice/testdata/voice.ogg")
	if err != nil {
		t.Fatal(err)
	}
	photo := w.tg.AddFile("photos/p.jpg", []byte("jpeg bytes"))
	voice := w.tg.AddFile("voice/v.oga", ogg)
	doc := w.tg.AddFile("documents/d.pdf", []byte("pdf bytes"))
	w.post(t, w.hookPath(t), "", map[string]any{"update_id": 1, "message": message(1, map[string]any{
		"photo":    []map[string]any{{"file_id": photo, "file_unique_id": "p", "width": 10, "height": 10}},
		"voice":    map[string]any{"file_id": voice, "file_unique_id": "v", "duration": 1},
		"document": map[string]any{"file_id": doc, "file_unique_id": "d", "file_name": "terms.pdf", "mime_type": "application/pdf"}})}).Expect(200)
	chatID := w.chat(t)["id"].(string)
	var files []map[string]any
	w.e.Eventually(10*time.Second, "the files", func() bool {
		w.e.Do("GET", "/orgs/c/chats/"+chatID+"/files", w.e.AdminKey, nil).Expect(200).JSON(&files)
		return len(files) == 3
	})
	var parts []map[string]any
	for _, f := range files {
		parts = append(parts, map[string]any{"type": "audio", "audio": map[string]any{"id": f["id"]}})
	}
	id := w.reply(t, chatID, append([]map[string]any{textPart("Here you are.")}, parts...)...)
	w.delivery(t, chatID, id, "SENT", "")
	if m := w.tg.Calls("sendMessage"); len(m) != 1 || m[0].Params["text"] != "Here you are." {
		t.Fatalf("sendMessage %+v", m)
	}
	ph, docs := w.tg.Calls("sendPhoto"), w.tg.Calls("sendDocument")
	if len(ph) != 1 || string(ph[0].Files["photo"].Data) != "jpeg bytes" || ph[0].Files["photo"].Name != "photo.jpg" ||
		ph[0].Params["chat_id"] != "4242" {
		t.Fatalf("sendPhoto %+v", ph)
	}
	if len(docs) != 1 || string(docs[0].Files["document"].Data) != "pdf bytes" || docs[0].Files["document"].Name != "terms.pdf" {
		t.Fatalf("sendDocument %+v", docs)
	}
	if v := w.tg.Calls("sendVoice"); len(v) != 1 || !bytes.Equal(v[0].Files["voice"].Data, ogg) || v[0].Files["voice"].Name != "voice.ogg" {
		t.Fatalf("sendVoice %d calls", len(v))
	}
}
