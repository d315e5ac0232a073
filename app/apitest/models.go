package apitest

import (
	"time"

	"wsapi/cli"
)

// TestProviderKey is the API key WithModelProvider configures; no answer may show it.
const TestProviderKey = "sk-test-4f9a1c2e7b"

// WithModelProvider is a configure function for New: srv (a fake model server) becomes the
// provider name of type typ ("openai" or "anthropic") with TestProviderKey and timeout.
func WithModelProvider(name, typ string, srv *LLMServer, timeout time.Duration) func(*cli.Config) {
	return func(c *cli.Config) {
		if c.Models.Providers == nil {
			c.Models.Providers = map[string]cli.ModelProvider{}
		}
		c.Models.Providers[name] = cli.ModelProvider{Type: typ, BaseURL: srv.URL, APIKey: TestProviderKey, Timeout: timeout}
	}
}

// WithModels is a configure function for New setting models.default and models.fallback.
func WithModels(defaultModel, fallback string) func(*cli.Config) {
	return func(c *cli.Config) {
		c.Models.Default, c.Models.Fallback = defaultModel, fallback
	}
}
