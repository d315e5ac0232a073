package telegram_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestTelegramSetupFailures: a token Telegram refuses, and a webhook Telegram refuses (its
// answer to a public_url that is not https), save the integration FAILED with Telegram's description;
// the token never shows.
func TestTelegramSetupFailures(t *testing.T) {
	t.Parallel()
	w := newWorld(t, noRuns)
	d := w.deploy(t, "9:UNKNOWN-TOKEN")
	if d["status"] != "FAILED" || d["error"] != "the bot token was refused: telegram getMe: Unauthorized" ||
		strings.Contains(fmt.Sprint(d), "UNKNOWN-TOKEN") {
		t.Fatalf("unknown token: %v", d)
	}
	w.tg.Fail("setWebhook", 400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook", 0)
	d = w.deploy(t, w.token)
	if d["status"] != "FAILED" || !strings.Contains(fmt.Sprint(d["error"]), "An HTTPS URL must be provided for webhook") {
		t.Fatalf("refused webhook: %v", d)
	}
}

// TestTelegramRotate: POST .../rotate makes a new secret_token and sets the webhook again:
// the old secret is refused from then on, the new one taken. The server-made secret is never
// input.
func TestTelegramRotate(t *testing.T) {
	t.Parallel()
	w := newWorld(t, noRuns)
	old := w.tg.Bot(w.token).Secret
	var d map[string]any
	w.e.Do("POST", w.path("/rotate"), w.e.AdminKey, nil).Expect(200).JSON(&d)
	now := w.tg.Bot(w.token).Secret
	if d["status"] != "ACTIVE" || now == "" || now == old || len(w.tg.Calls("setWebhook")) != 2 ||
		fmt.Sprint(d["secret_keys"]) != "[bot_token webhook_secret]" || strings.Contains(fmt.Sprint(d), now) {
		t.Fatalf("rotate: %v (secret changed: %v)", d, now != old)
	}
	w.post(t, w.hookPath(t), old, textUpdate(1, "old secret")).ExpectError(403, "permission_denied")
	w.post(t, w.hookPath(t), now, textUpdate(2, "new secret")).Expect(200)
	w.chat(t)
	w.e.Do("PATCH", w.path(""), w.e.AdminKey, map[string]any{"secrets": map[string]string{"webhook_secret": "mine"}}).
		ExpectError(400, "invalid_argument", "secrets")
	// A new token sets the webhook of that bot up (getMe, setWebhook).
	other := "7002:AAH-other"
	w.tg.AddBot(other, "other_bot")
	w.e.Do("PATCH", w.path(""), w.e.AdminKey, map[string]any{"secrets": map[string]string{"bot_token": other}}).Expect(200).JSON(&d)
	if d["status"] != "ACTIVE" || w.tg.Bot(other).Webhook != publicURL+"/hooks/telegram/"+w.asi {
		t.Fatalf("new token: %v, webhook %q", d, w.tg.Bot(other).Webhook)
	}
}
