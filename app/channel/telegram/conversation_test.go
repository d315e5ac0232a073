package telegram_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/cli"
)

// TestTelegramConversation: creating the integration checks the token and sets the webhook
// to {public_url}/hooks/telegram/{asi} with a secret; an update opens a chat with a telegram
// contact (user_id, username, name, language), the built-in assistant answers through
// sendMessage, the delivery is SENT with Telegram's message id, and
// the same update sent again adds nothing.
func TestTelegramConversation(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	bot := w.tg.Bot(w.token)
	if bot.Webhook != publicURL+"/hooks/telegram/"+w.asi || len(bot.Secret) < 32 ||
		fmt.Sprint(bot.Allowed) != "[message edited_message]" || len(w.tg.Calls("getMe")) != 1 {
		t.Fatalf("webhook %+v", bot)
	}
	w.post(t, w.hookPath(t), "", textUpdate(1001, "What are your opening hours?")).Expect(200)
	c := w.chat(t)
	st := c["state"].(map[string]any)
	if st["assistant_integration_id"] != w.asi || st["assistant_id"] != w.asst || st["integration_id"] != "telegram" ||
		st["assistant_integration"].(map[string]any)["enabled"] != true {
		t.Fatalf("chat state %v", st)
	}
	ch := contactChannel(t, c)
	if ch["type"] != "telegram" || ch["user_id"] != "4242" || ch["username"] != "ada" || ch["name"] != "Ada Lovelace" ||
		ch["language"] != "fr" || ch["contact"].(map[string]any)["name"] != "Ada Lovelace" {
		t.Fatalf("contact channel %v", ch)
	}

	w.e.Clock.Advance(time.Second) // the debounce: the assistant answers
	sent := w.waitCalls(t, "sendMessage", 1)
	if sent[0].Params["chat_id"] != "4242" || !strings.Contains(sent[0].Params["text"], "nine to five") || sent[0].Params["parse_mode"] != "" {
		t.Fatalf("sendMessage %+v", sent[0].Params)
	}
	ms := w.messages(t, c["id"].(string))
	answer := ms[len(ms)-1]
	d := w.delivery(t, c["id"].(string), answer["id"].(string), "SENT", "")
	if d["external_id"] == nil || d["external_id"] == "" {
		t.Fatalf("delivery %v", d)
	}

	// Telegram sends an update again when it missed our answer: nothing more comes of it.
	w.post(t, w.hookPath(t), "", textUpdate(1001, "What are your opening hours?")).Expect(200)
	w.e.WaitIdle()
	if n := len(w.messages(t, c["id"].(string))); n != len(ms) {
		t.Fatalf("a duplicate update added messages: %d, then %d", len(ms), n)
	}
	// A new update joins the same chat; an edit arrives as a new message saying so.
	w.post(t, w.hookPath(t), "", map[string]any{"update_id": 1002, "edited_message": message(1001,
		map[string]any{"text": "What are your opening hours on Saturday?", "edit_date": 1700000100})}).Expect(200)
	w.e.Eventually(10*time.Second, "the edit", func() bool {
		ms := w.messages(t, c["id"].(string))
		return len(ms) == 3 && partText(ms[2], 0) == "(edited) What are your opening hours on Saturday?"
	})
}

// TestTelegramIgnoresGroupsAndBots: only private chats with people open conversations.
func TestTelegramIgnoresGroupsAndBots(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	group := message(1, map[string]any{"text": "hi all", "chat": map[string]any{"id": -100, "type": "group"}})
	w.post(t, w.hookPath(t), "", map[string]any{"update_id": 1, "message": group}).Expect(200)
	bot := message(2, map[string]any{"text": "beep", "from": map[string]any{"id": 9, "is_bot": true, "first_name": "B"}})
	w.post(t, w.hookPath(t), "", map[string]any{"update_id": 2, "message": bot}).Expect(200)
	w.post(t, w.hookPath(t), "", map[string]any{"update_id": 3, "message": message(3, map[string]any{"sticker": map[string]any{"file_id": "s"}})}).Expect(200)
	w.e.WaitIdle()
	if n := w.e.Count(w.e.AdminKey, "/orgs/c/inbox?assistant_integration_id="+w.asi); n != 0 {
		t.Fatalf("%d chats from groups, bots and stickers", n)
	}
}

// TestTelegramTypingWhileRunWorks: while the assistant's run works (a model that takes its
// time), the contact's chat shows "typing"; the answer then goes out.
func TestTelegramTypingWhileRunWorks(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	oa.Default(apitest.LLMReply{Text: []string{"We open at nine."}, Delay: time.Second})
	w := newWorld(t, func(c *cli.Config) {
		c.Models.Providers = map[string]cli.ModelProvider{"oa": {Type: "openai", BaseURL: oa.URL, APIKey: "k", Timeout: 30 * time.Second}}
		c.Models.Default = "oa:m"
	})
	w.post(t, w.hookPath(t), "", textUpdate(7, "When do you open?")).Expect(200)
	w.chat(t)
	w.e.Clock.Advance(time.Second)
	typing := w.waitCalls(t, "sendChatAction", 1)
	if typing[0].Params["action"] != "typing" || typing[0].Params["chat_id"] != "4242" {
		t.Fatalf("sendChatAction %+v", typing[0].Params)
	}
	if sent := w.waitCalls(t, "sendMessage", 1); sent[0].Params["text"] != "We open at nine." {
		t.Fatalf("sendMessage %+v", sent[0].Params)
	}
}
