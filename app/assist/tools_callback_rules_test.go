package assist_test

import (
	"strings"
	"testing"

	"wsapi/app/apitest"
	"wsapi/cli"
)

// TestToolCallbacksFollowTheWebhookURLRules: a chat (and a message) whose tool callback is
// not https, is a file:// URL, or points at loopback, link-local metadata, a private
// address or a name resolving to one is refused at save with 400 naming the tool's field,
// and no message is saved; a public https callback and a tool without one are accepted.
func TestToolCallbacksFollowTheWebhookURLRules(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, func(c *cli.Config) { c.Webhooks.AllowPrivateTargets = false })
	apitest.Resolver.Set("tools-internal.example.test", apitest.Addrs("10.1.2.3"))
	apitest.Resolver.Set("tools-public.example.test", apitest.Addrs("93.184.216.34"))
	tools := func(callback string) []map[string]any {
		return []map[string]any{{"name": "plain"}, {"name": "lookup", "callback": callback, "enabled_by_default": true}}
	}
	cases := []struct{ url, why string }{
		{"http://93.184.216.34/cb", "must use https"},
		{"file:///etc/passwd", "absolute https URL"},
		{"https://localhost/cb", "localhost"},
		{"https://127.0.0.1:8443/cb", "loopback"},
		{"https://169.254.169.254/latest/meta-data", "link-local"},
		{"https://10.0.0.1/cb", "private"},
		{"https://tools-internal.example.test/cb", "private address (10.1.2.3)"},
		{"https://user:pw@93.184.216.34/cb", "credentials"},
	}
	chat := e.Do("POST", "/orgs/c/chats", e.AdminKey, map[string]any{"tools": tools("https://tools-public.example.test/cb")}).
		Expect(201).Map()["id"].(string)
	for _, c := range cases {
		r := e.Do("POST", "/orgs/c/chats", e.AdminKey, map[string]any{"tools": tools(c.url)})
		r.ExpectError(400, "invalid_argument", "tools[1].callback")
		if why := r.ErrorFields()["tools[1].callback"]; !strings.Contains(why, c.why) {
			t.Errorf("chat with callback %s: %q does not say %q", c.url, why, c.why)
		}
		r = e.Do("POST", "/orgs/c/chats/"+chat+"/messages", e.AdminKey, map[string]any{"role": "user", "tools": tools(c.url),
			"messages": []map[string]any{{"role": "user", "parts": []map[string]any{{"type": "text", "text": "hi"}}}}})
		r.ExpectError(400, "invalid_argument", "tools[1].callback")
	}
	if n := len(e.Do("GET", "/orgs/c/chats/"+chat+"/messages", e.AdminKey, nil).Expect(200).List()); n != 0 {
		t.Fatalf("%d messages after the refused ones, want none", n)
	}
}
