package whatsapp_test

import (
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/app/channel/telegram/telegramtest"
	"wsapi/app/channel/whatsapp/whatsapptest"
	"wsapi/cli"
)

// TestBroadcastOnWhatsAppAndTelegram: a WhatsApp broadcast goes out as its template to the
// target contacts with a WhatsApp channel (a blocked one skipped), a Telegram broadcast as
// text to the Telegram contact; the recipients' flags follow the deliveries (sent, then
// delivered and opened from WhatsApp's receipts, failed with Meta's title); the broadcast's
// own bad input is refused naming the fields, another organization's integration is 404.
func TestBroadcastOnWhatsAppAndTelegram(t *testing.T) {
	t.Parallel()
	tg := telegramtest.New(t)
	botToken := "7001:AAH-broadcast-bot-token"
	tg.AddBot(botToken, "news_bot")
	w := newWA(t, apitest.NoRuns, apitest.Unlimited, func(c *cli.Config) {
		c.Channels.Telegram.APIURL, c.HTTP.PublicURL = tg.URL, "https://chat.example.com"
	})
	e, srv := w.e, w.srv
	var bot map[string]any
	e.Do("POST", "/orgs/c/assistants/"+w.asst+"/integrations", e.AdminKey, map[string]any{"integration_id": "telegram",
		"name": "News bot", "secrets": map[string]string{"bot_token": botToken}}).Expect(201).JSON(&bot)
	if bot["status"] != "ACTIVE" {
		t.Fatalf("telegram integration %v", bot)
	}
	contact := func(name string, ch map[string]any) string {
		return e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": name,
			"channels": []any{ch}}).Expect(201).Map()["id"].(string)
	}
	ada := contact("Ada", map[string]any{"type": "whatsapp", "user_id": "447700900001", "phone": "+447700900001"})
	bob := contact("Bob", map[string]any{"type": "whatsapp", "phone": "+44 7700 900002"}) // imported: no wa_id yet
	cyd := contact("Cyd", map[string]any{"type": "whatsapp", "user_id": "447700900003", "phone": "+447700900003"})
	dan := contact("Dan", map[string]any{"type": "telegram", "user_id": "424242", "username": "dan"})
	eve := contact("Eve", map[string]any{"type": "email", "email": "eve@example.com"})
	e.Do("PATCH", "/orgs/c/contacts/"+cyd, e.AdminKey, map[string]any{"blocked": true}).Expect(200)
	all := []string{ada, bob, cyd, dan, eve}
	tpl := map[string]any{"name": "spring_sale", "language": "en_US"}

	// Bad input: named, nothing made.
	bc := func(extra map[string]any) map[string]any {
		b := map[string]any{"name": "Spring", "integration_id": "whatsapp", "contact_ids": all,
			"assistant_integration_id": w.asi, "template": tpl, "text": "Spring sale: 20% off"}
		for k, v := range extra {
			b[k] = v
		}
		for k, v := range b {
			if v == nil {
				delete(b, k)
			}
		}
		return b
	}
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, bc(map[string]any{"template": nil, "assistant_integration_id": nil})).
		ExpectError(400, "invalid_argument", "template", "assistant_integration_id")
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, bc(map[string]any{"assistant_integration_id": bot["id"]})).
		ExpectError(400, "invalid_argument", "assistant_integration_id")
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, bc(map[string]any{"integration_id": "telegram", "assistant_integration_id": bot["id"]})).
		ExpectError(400, "invalid_argument", "template")
	_, otherKey := e.OrgWithAdmin("Other")
	if n := e.Count(e.AdminKey, "/orgs/c/broadcasts"); n != 0 {
		t.Fatalf("refused broadcasts made %d", n)
	}
	// Another organization's contact list is its own; our integration is not found there.
	oc := e.Do("POST", "/orgs/c/contacts", otherKey, map[string]any{"name": "Zed",
		"channels": []any{map[string]any{"type": "whatsapp", "user_id": "1555"}}}).Expect(201).Map()["id"]
	e.Do("POST", "/orgs/c/broadcasts", otherKey, bc(map[string]any{"contact_ids": []any{oc}})).ExpectError(404, "not_found")

	// WhatsApp: Ada and Bob get the template, blocked Cyd is skipped, Dan and Eve are not recipients.
	wb := e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, bc(nil)).Expect(201).Map()
	if wb["assistant_integration_id"] != w.asi || wb["template"].(map[string]any)["name"] != "spring_sale" {
		t.Fatalf("broadcast %v", wb)
	}
	sent := srv.WaitSent(t, 2)
	to := map[string]whatsapptest.Sent{}
	for _, s := range sent {
		if s["type"] != "template" || s["template"].(map[string]any)["name"] != "spring_sale" {
			t.Fatalf("broadcast sent as %v", s)
		}
		to[s["to"].(string)] = s
	}
	if to["447700900001"] == nil || to["447700900002"] == nil {
		t.Fatalf("sent to %v", to)
	}
	rcpts := func(id string) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, r := range e.Do("GET", "/orgs/c/broadcasts/recipients?broadcast_id="+id, e.AdminKey, nil).Expect(200).List() {
			out[r["name"].(string)] = r
		}
		return out
	}
	e.Eventually(10*time.Second, "whatsapp recipients sent", func() bool {
		r := rcpts(wb["id"].(string))
		return r["Ada"]["is_sent"] == true && r["Bob"]["is_sent"] == true
	})
	r := rcpts(wb["id"].(string))
	if len(r) != 3 || r["Cyd"]["is_skipped"] != true || r["Cyd"]["is_sent"] != nil || r["Ada"]["is_delivered"] != nil {
		t.Fatalf("recipients %v", r)
	}
	w.post(srv.Payload(nil, nil, []map[string]any{
		whatsapptest.Status(to["447700900001"].ID(), "delivered", "447700900001", time.Now(), 0, ""),
		whatsapptest.Status(to["447700900001"].ID(), "read", "447700900001", time.Now(), 0, ""),
		whatsapptest.Status(to["447700900002"].ID(), "failed", "447700900002", time.Now(), 131049,
			"This message was not delivered to maintain healthy ecosystem engagement."),
	}), appSecret).Expect(200)
	e.Eventually(10*time.Second, "receipts on the recipients", func() bool {
		r := rcpts(wb["id"].(string))
		return r["Ada"]["is_opened"] == true && r["Bob"]["is_failed"] == true
	})
	r = rcpts(wb["id"].(string))
	if r["Ada"]["is_delivered"] != true || r["Ada"]["is_failed"] != nil ||
		!strings.Contains(r["Bob"]["error_message"].(string), "healthy ecosystem") {
		t.Fatalf("recipients after receipts %v", r)
	}
	got := e.Do("GET", "/orgs/c/broadcasts/"+wb["id"].(string), e.AdminKey, nil).Expect(200).Map()
	counts := got["counts"].(map[string]any)
	if got["status"] != "SENT" || counts["recipients"] != 3.0 || counts["opened"] != 1.0 || counts["failed"] != 1.0 ||
		counts["skipped"] != 1.0 {
		t.Fatalf("broadcast %v", got)
	}

	// Telegram: Dan gets the text through the bot.
	tb := e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, map[string]any{"name": "Spring (Telegram)", "integration_id": "telegram",
		"assistant_integration_id": bot["id"], "text": "Spring sale: 20% off", "contact_ids": all}).Expect(201).Map()
	e.Eventually(10*time.Second, "telegram recipient sent", func() bool { return rcpts(tb["id"].(string))["Dan"]["is_sent"] == true })
	calls := tg.Calls("sendMessage")
	if len(calls) != 1 || calls[0].Params["chat_id"] != "424242" || calls[0].Params["text"] != "Spring sale: 20% off" {
		t.Fatalf("telegram sendMessage calls %v", calls)
	}
	if n := len(rcpts(tb["id"].(string))); n != 1 {
		t.Fatalf("telegram broadcast has %d recipients, want 1 (Dan)", n)
	}
}
