package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wsapi/app"
)

// Prices keyed by model ids with dots and capitals are read whole (viper would split them at
// the dots), lowercased; a price with an unknown field or a negative value is refused.
func TestModelPricesFromFile(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	v, err := newViper(write(`models:
  default: openai:gpt-4.1
  providers:
    openai: {type: openai, base_url: "http://127.0.0.1:1/v1", api_key: sk-test, timeout: 30s}
  prices:
    "openai:gpt-4.1": {input: 2, output: 8, cache_read: 0.5}
    "Ollama:Qwen2.5": {input: 1}
`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := decodeConfig(v)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]app.Price{"openai:gpt-4.1": {Input: 2, Output: 8, CacheRead: 0.5}, "ollama:qwen2.5": {Input: 1}}
	if len(c.Models.Prices) != 2 || c.Models.Prices["openai:gpt-4.1"] != want["openai:gpt-4.1"] ||
		c.Models.Prices["ollama:qwen2.5"] != want["ollama:qwen2.5"] {
		t.Fatalf("prices %+v", c.Models.Prices)
	}
	if p := c.Models.Providers["openai"]; p.Type != "openai" || p.APIKey != "sk-test" || p.Timeout.Seconds() != 30 {
		t.Fatalf("provider %+v", p)
	}
	for body, want := range map[string]string{
		"models:\n  prices:\n    \"a:b\": {inptu: 1}\n":  "inptu",
		"models:\n  prices:\n    \"a:b\": {input: -1}\n": "must not be negative",
		"models:\n  default: nope\n":                     "models.default",
		"models:\n  providers:\n    x: {type: gemini}\n": "type must be openai or anthropic",
		"assistants:\n  workers: 0\n":                    "assistants.workers",
	} {
		v, err := newViper(write(body))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decodeConfig(v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one naming %q", body, err, want)
		}
	}
}
