package api_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/cli"
)

// widgetEnv is an assistant that knows the opening hours, deployed as a widget.
type widgetEnv struct {
	e         *apitest.Env
	asst, asi string
	key       string // the widget's secret_key
}

func newWidget(t *testing.T, config map[string]any, configure ...func(*cli.Config)) *widgetEnv {
	if config == nil {
		config = map[string]any{}
	}
	t.Helper()
	e := apitest.New(t, configure...)
	w := &widgetEnv{e: e}
	w.asst = newAssistant(t, e, e.AdminKey, map[string]any{"name": "Aria Helper", "config": map[string]any{
		"conversation": map[string]any{"welcome_banner": "Hi! Ask us anything.",
			"suggested_messages": []string{"What are your opening hours?"}}}})
	var k map[string]any
	e.Do("POST", "/orgs/c/assistants/"+w.asst+"/knowledge/contents", e.AdminKey, map[string]any{"title": "Hours",
		"content": map[string]any{"type": "TEXT", "text": "Our opening hours are nine to five, Monday to Friday."}}).Expect(201).JSON(&k)
	e.Eventually(20*time.Second, "knowledge processed", func() bool {
		var got map[string]any
		e.Do("GET", "/orgs/c/assistants/"+w.asst+"/knowledge/contents/"+k["id"].(string), e.AdminKey, nil).Expect(200).JSON(&got)
		return got["status"] == "PROCESSED"
	})
	var d map[string]any
	e.Do("POST", asiPath(w.asst), e.AdminKey, map[string]any{"integration_id": "internal", "name": "Site", "config": config}).
		Expect(201).JSON(&d)
	w.asi, w.key = d["id"].(string), d["secret_key"].(string)
	return w
}

func (w *widgetEnv) api(rest string) string { return "/widget/" + w.asi + "/api" + rest }

// visitor calls the visitor API with a session token.
func (w *widgetEnv) visitor(method, path, token string, body any) *apitest.Response {
	return w.e.Send(w.visitorRequest(method, path, token, body))
}

// visitorInvalid is visitor for a request that breaks the document on purpose.
func (w *widgetEnv) visitorInvalid(method, path, token string, body any) *apitest.Response {
	return w.e.Send(apitest.Invalid(w.visitorRequest(method, path, token, body)))
}

func (w *widgetEnv) visitorRequest(method, path, token string, body any) *http.Request {
	req := w.e.Request(method, w.api(path), "", body)
	if token != "" {
		req.Header.Set("X-Session-Token", token)
	}
	req.Header.Set("User-Agent", "WidgetTest/1.0")
	req.Header.Set("Accept-Language", "fr-CH, fr;q=0.9")
	return req
}

func (w *widgetEnv) start(t *testing.T, body map[string]any) (token string, session map[string]any) {
	t.Helper()
	var s map[string]any
	w.visitor("POST", "/session", "", body).Expect(201).JSON(&s)
	return s["token"].(string), s
}

// nextOf skips the stream's events up to the next of type typ.
func nextOf(s *apitest.SSEStream, typ string) apitest.SSEEvent {
	for {
		if ev := s.Next(); ev.Type == typ {
			return ev
		}
	}
}

func userHash(key, userID string) string {
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte(userID))
	return hex.EncodeToString(mac.Sum(nil))
}
