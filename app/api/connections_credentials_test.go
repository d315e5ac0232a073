package api_test

import (
	"testing"

	"wsapi/app/apitest"
)

// TestConnectionConfigRefusesCredentials: keys that name a credential however written
// (case, dashes, underscores, camelCase) and values that look like one are refused in
// config, naming each, and nothing is stored; settings that merely resemble them pass.
func TestConnectionConfigRefusesCredentials(t *testing.T) {
	e := apitest.New(t)
	cfg := map[string]any{"Api-Key": "a", "authorization": "b", "auth": "c", "bearer": "d", "passwd": "e",
		"header": "Bearer abcdef123456", "upstream": map[string]any{"key": "sk_live_51HabcDEF"}, "region": "eu"}
	e.Do("POST", "/orgs/c/connections", e.AdminKey, map[string]any{"type": "TOOLS", "name": "x", "config": cfg}).
		ExpectError(400, "invalid_argument", "config.Api-Key", "config.authorization", "config.auth", "config.bearer",
			"config.passwd", "config.header", "config.upstream.key")
	if l := e.Do("GET", "/orgs/c/connections", e.AdminKey, nil).Expect(200).List(); len(l) != 0 {
		t.Fatalf("a refused connection was stored: %v", l)
	}
	ok := map[string]any{"author": "Ada", "auth": map[string]any{"scheme": "bearer"}, "workspace_id": "3f2504e0-4f89-11d3-9a0c-0305e82c3301",
		"url": "https://api.example.com/v1"}
	e.Do("POST", "/orgs/c/connections", e.AdminKey, map[string]any{"type": "TOOLS", "name": "y", "config": ok}).Expect(201)
}
