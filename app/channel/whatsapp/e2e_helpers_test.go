package whatsapp_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/app/channel/whatsapp/whatsapptest"
	"wsapi/cli"
)

// waEnv is an assistant that knows the opening hours, deployed on WhatsApp against a local
// Graph API.
type waEnv struct {
	e                *apitest.Env
	srv              *whatsapptest.Server
	asst, asi, token string // token: the integration's verify_token
}

const (
	phoneID   = "106540352242922"
	accessTok = "EAAG-test-access-token"
	appSecret = "0123456789abcdef0123456789abcdef"
)

func newWA(t *testing.T, configure ...func(*cli.Config)) *waEnv {
	t.Helper()
	srv := whatsapptest.New(t, phoneID, accessTok)
	e := apitest.New(t, append([]func(*cli.Config){func(c *cli.Config) { c.Channels.WhatsApp.APIURL = srv.URL + "/v21.0" }},
		configure...)...)
	w := &waEnv{e: e, srv: srv}
	var a, k map[string]any
	e.Do("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": "Aria Helper"}).Expect(201).JSON(&a)
	w.asst = a["id"].(string)
	e.Do("POST", "/orgs/c/assistants/"+w.asst+"/knowledge/contents", e.AdminKey, map[string]any{"title": "Hours",
		"content": map[string]any{"type": "TEXT", "text": "Our opening hours are nine to five, Monday to Friday."}}).Expect(201).JSON(&k)
	e.Eventually(20*time.Second, "knowledge processed", func() bool {
		var got map[string]any
		e.Do("GET", "/orgs/c/assistants/"+w.asst+"/knowledge/contents/"+k["id"].(string), e.AdminKey, nil).Expect(200).JSON(&got)
		return got["status"] == "PROCESSED"
	})
	d := w.integration(t, e.AdminKey, accessTok)
	if d["status"] != "ACTIVE" {
		t.Fatalf("integration %v", d)
	}
	w.asi, w.token = d["id"].(string), d["config"].(map[string]any)["verify_token"].(string)
	return w
}

func (w *waEnv) integration(t *testing.T, key, token string) map[string]any {
	t.Helper()
	var d map[string]any
	w.e.Do("POST", "/orgs/c/assistants/"+w.asst+"/integrations", key, map[string]any{"integration_id": "whatsapp",
		"name": "Support line", "config": map[string]any{"phone_number_id": phoneID, "waba_id": "102290129340398"},
		"secrets": map[string]string{"access_token": token, "app_secret": appSecret}}).Expect(201).JSON(&d)
	return d
}

// post delivers a webhook body to the integration's hook, signed with secret ("" unsigned).
func (w *waEnv) post(body []byte, secret string) *apitest.Response {
	return w.e.Send(w.postRequest(body, secret))
}

func (w *waEnv) postRequest(body []byte, secret string) *http.Request {
	req := w.e.Request("POST", "/hooks/whatsapp/"+w.asi, "", body)
	if secret != "" {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	}
	return req
}

// challenge is Meta's verification GET.
func (w *waEnv) challenge(asi string, q url.Values) *apitest.Response {
	return w.e.Do("GET", "/hooks/whatsapp/"+asi+"?"+q.Encode(), "", nil)
}

// chats lists the organization's chats of the integration.
func (w *waEnv) chats() []map[string]any {
	return w.e.Do("GET", "/orgs/c/inbox?assistant_integration_id="+w.asi, w.e.AdminKey, nil).Expect(200).List()
}

// messages lists a chat's messages, oldest first.
func (w *waEnv) messages(chatID string) []map[string]any {
	return w.e.Do("GET", "/orgs/c/chats/"+chatID+"/messages?take=100", w.e.AdminKey, nil).Expect(200).List()
}

// waitChat waits for the integration's only chat and answers its id.
func (w *waEnv) waitChat(t *testing.T) string {
	t.Helper()
	var id string
	w.e.Eventually(10*time.Second, "a WhatsApp chat", func() bool {
		if cs := w.chats(); len(cs) == 1 {
			id = cs[0]["id"].(string)
		}
		return id != ""
	})
	return id
}

// delivery waits for a message's delivery status and answers the delivery.
func (w *waEnv) delivery(t *testing.T, chatID, msgID, status string) map[string]any {
	t.Helper()
	var got map[string]any
	w.e.Eventually(10*time.Second, "delivery "+status+" of "+msgID, func() bool {
		for _, m := range w.messages(chatID) {
			if m["id"] == msgID {
				got, _ = m["delivery"].(map[string]any)
			}
		}
		return got != nil && got["status"] == status
	})
	return got
}

// memberSays posts a member's message to the chat and answers its id.
func (w *waEnv) memberSays(chatID string, parts ...map[string]any) string {
	m := w.e.Do("POST", "/orgs/c/chats/"+chatID+"/messages", w.e.AdminKey, map[string]any{"role": "admin",
		"messages": []map[string]any{{"role": "admin", "parts": parts}}}).Expect(201).Map()
	return m["id"].(string)
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

// partsText joins a message's text parts.
func partsText(m map[string]any) string {
	var b strings.Builder
	turns, _ := m["messages"].([]any)
	for _, t := range turns {
		parts, _ := t.(map[string]any)["parts"].([]any)
		for _, p := range parts {
			if s, ok := p.(map[string]any)["text"].(string); ok {
				b.WriteString(s)
			}
		}
	}
	return b.String()
}
