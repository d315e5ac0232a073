package telegram_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/app/channel/telegram/telegramtest"
	"wsapi/cli"
)

// publicURL is the server's http.public_url in these tests: the webhook Telegram is given.
const publicURL = "https://chat.example.com"

// world is a server whose Telegram channel talks to a local Bot API server, and a bot
// deployed for an assistant that knows the opening hours.
type world struct {
	e         *apitest.Env
	tg        *telegramtest.Server
	token     string
	asst, asi string
}

func newWorld(t *testing.T, configure ...func(*cli.Config)) *world {
	t.Helper()
	tg := telegramtest.New(t)
	configure = append([]func(*cli.Config){apitest.Unlimited, func(c *cli.Config) {
		c.Channels.Telegram.APIURL = tg.URL
		c.HTTP.PublicURL = publicURL
	}}, configure...)
	w := &world{e: apitest.New(t, configure...), tg: tg, token: "7001:AAH-" + app.RandomBase62(20)}
	tg.AddBot(w.token, "hours_bot")
	e := w.e
	var a, k map[string]any
	e.Do("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": "Hours"}).Expect(201).JSON(&a)
	w.asst = a["id"].(string)
	e.Do("POST", "/orgs/c/assistants/"+w.asst+"/knowledge/contents", e.AdminKey, map[string]any{"title": "Hours",
		"content": map[string]any{"type": "TEXT", "text": "Our opening hours are nine to five, Monday to Friday."}}).Expect(201).JSON(&k)
	e.Eventually(20*time.Second, "knowledge processed", func() bool {
		var got map[string]any
		e.Do("GET", "/orgs/c/assistants/"+w.asst+"/knowledge/contents/"+k["id"].(string), e.AdminKey, nil).Expect(200).JSON(&got)
		return got["status"] == "PROCESSED"
	})
	d := w.deploy(t, w.token)
	if d["status"] != "ACTIVE" {
		t.Fatalf("telegram integration: %v", d)
	}
	w.asi = d["id"].(string)
	return w
}

func (w *world) deploy(t *testing.T, token string) map[string]any {
	t.Helper()
	var d map[string]any
	w.e.Do("POST", w.base(), w.e.AdminKey, map[string]any{"integration_id": "telegram", "name": "Bot",
		"secrets": map[string]string{"bot_token": token}}).Expect(201).JSON(&d)
	return d
}

// base is the assistant's integrations; path one of the bot's routes.
func (w *world) base() string { return "/orgs/c/assistants/" + w.asst + "/integrations" }

func (w *world) path(rest string) string { return w.base() + "/" + w.asi + rest }

// noRuns keeps the assistant from answering (a year's debounce).
var noRuns = apitest.NoRuns

// hookPath is the path of the webhook the bot was given.
func (w *world) hookPath(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(w.tg.Bot(w.token).Webhook)
	if err != nil || u.Path == "" {
		t.Fatalf("bot webhook %q", w.tg.Bot(w.token).Webhook)
	}
	return u.Path
}

// post delivers an update as Telegram does (through the document's validator), with the
// bot's secret_token unless secret says otherwise ("-": none).
func (w *world) post(t *testing.T, path, secret string, update any) *apitest.Response {
	t.Helper()
	req := w.e.Request("POST", path, "", update)
	if secret == "" {
		secret = w.tg.Bot(w.token).Secret
	}
	if secret != "-" {
		req.Header.Set(telegramSecretHeader, secret)
	}
	return w.e.Send(req)
}

// postRaw is post for a body that breaks the document on purpose (oversized, not JSON).
func (w *world) postRaw(t *testing.T, path string, body []byte) *apitest.Response {
	t.Helper()
	req := w.e.Request("POST", path, "", body)
	req.Header.Set(telegramSecretHeader, w.tg.Bot(w.token).Secret)
	return w.e.Send(apitest.Invalid(req))
}

const telegramSecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// textUpdate is a private text message from user 4242.
func textUpdate(id int64, text string) map[string]any {
	return map[string]any{"update_id": id, "message": message(id, map[string]any{"text": text})}
}

func message(id int64, fields map[string]any) map[string]any {
	m := map[string]any{"message_id": id, "date": 1700000000,
		"from": map[string]any{"id": 4242, "is_bot": false, "first_name": "Ada", "last_name": "Lovelace",
			"username": "ada", "language_code": "fr"},
		"chat": map[string]any{"id": 4242, "type": "private", "first_name": "Ada"}}
	for k, v := range fields {
		m[k] = v
	}
	return m
}

// chat waits for the bot's chat to appear in the inbox and answers it.
func (w *world) chat(t *testing.T) map[string]any {
	t.Helper()
	var inbox []map[string]any
	w.e.Eventually(10*time.Second, "the telegram chat in the inbox", func() bool {
		w.e.Do("GET", "/orgs/c/inbox?assistant_integration_id="+w.asi, w.e.AdminKey, nil).Expect(200).JSON(&inbox)
		return len(inbox) == 1
	})
	var c map[string]any
	w.e.Do("GET", "/orgs/c/chats/"+inbox[0]["id"].(string), w.e.AdminKey, nil).Expect(200).JSON(&c)
	return c
}

func (w *world) messages(t *testing.T, chatID string) []map[string]any {
	t.Helper()
	var ms []map[string]any
	w.e.Do("GET", "/orgs/c/chats/"+chatID+"/messages", w.e.AdminKey, nil).Expect(200).JSON(&ms)
	return ms
}

// waitCalls waits until the bot made n calls of method, and answers them.
func (w *world) waitCalls(t *testing.T, method string, n int) []telegramtest.Call {
	t.Helper()
	w.e.Eventually(10*time.Second, method+" called", func() bool { return len(w.tg.Calls(method)) >= n })
	return w.tg.Calls(method)
}

// reply adds a member's message to a chat and answers its id.
func (w *world) reply(t *testing.T, chatID string, parts ...map[string]any) string {
	t.Helper()
	var m map[string]any
	w.e.Do("POST", "/orgs/c/chats/"+chatID+"/messages", w.e.AdminKey, map[string]any{"role": "admin",
		"messages": []map[string]any{{"role": "admin", "parts": parts}}}).Expect(201).JSON(&m)
	return m["id"].(string)
}

func textPart(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

// delivery waits for a message's delivery to reach status (and an error holding errText).
func (w *world) delivery(t *testing.T, chatID, id, status, errText string) map[string]any {
	t.Helper()
	var d map[string]any
	w.e.Eventually(10*time.Second, "delivery "+status, func() bool {
		for _, m := range w.messages(t, chatID) {
			if m["id"] == id {
				d, _ = m["delivery"].(map[string]any)
			}
		}
		e, _ := d["error"].(string)
		return d != nil && d["status"] == status && strings.Contains(e, errText)
	})
	return d
}

// contactChannel is the chat's contact member's channel.
func contactChannel(t *testing.T, c map[string]any) map[string]any {
	t.Helper()
	for _, m := range c["members"].([]any) {
		if ch, ok := m.(map[string]any)["contact_channel"].(map[string]any); ok {
			return ch
		}
	}
	t.Fatalf("chat without a contact member: %v", c)
	return nil
}

// partText is the text of part i of a message's first turn ("" when there is none).
func partText(m map[string]any, i int) string {
	turns, _ := m["messages"].([]any)
	if len(turns) == 0 {
		return ""
	}
	parts, _ := turns[0].(map[string]any)["parts"].([]any)
	if i >= len(parts) {
		return ""
	}
	s, _ := parts[i].(map[string]any)["text"].(string)
	return s
}
