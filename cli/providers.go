package cli

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"wsapi/app"
	"wsapi/app/assist"
	"wsapi/app/assist/anthropic"
	"wsapi/app/assist/builtin"
	"wsapi/app/assist/openai"
	"wsapi/app/voice"
)

// wireAssistants makes the run worker with its providers.
func (rt *Runtime) wireAssistants(cfg Config, opt Options) error {
	m, a := cfg.Models, cfg.Assistants
	providers, err := buildProviders(m, rt.Service)
	if err != nil {
		return err
	}
	var secrets []string
	for _, p := range m.Providers {
		secrets = append(secrets, p.APIKey)
	}
	rt.Runner = assist.NewRunner(rt.Service, providers, assist.Config{Workers: a.Workers, PerOrg: a.MaxInFlightPerOrg, Tick: a.Tick,
		FlushInterval: a.FlushInterval, Retries: a.Retries, MaxSteps: a.MaxSteps, Fallback: m.Fallback, Secrets: secrets, Clock: rt.Service.Clock()}, rt.Log)
	// Chat tools' callbacks are tenant URLs: the guarded client of webhooks, its time limit.
	if rt.Runner.HTTP, err = guardedClient(cfg, opt, false); err != nil {
		return err
	}
	rt.Runner.Voices = voices(m)
	rt.runs.runner = rt.Runner
	return nil
}

// voices are the audio endpoints of the OpenAI-compatible providers (the assistants' stt and
// tts models); an Anthropic provider has none. Their URLs are the operator's, not a tenant's.
func voices(m ModelsConfig) map[string]*voice.Client {
	out := map[string]*voice.Client{}
	for name, p := range m.Providers {
		if p.Type == "openai" {
			timeout := p.Timeout
			if timeout == 0 {
				timeout = DefaultProviderTimeout
			}
			base := p.BaseURL
			if base == "" {
				base = "https://api.openai.com/v1" // as the chat provider defaults
			}
			out[name] = &voice.Client{BaseURL: base, APIKey: p.APIKey, Timeout: timeout}
		}
	}
	return out
}

// assistantPolicies are the service's run and automation policies.
func assistantPolicies(cfg Config) (app.RunPolicy, app.AutomationPolicy) {
	m, a := cfg.Models, cfg.Assistants
	return app.RunPolicy{Debounce: a.Debounce, HistoryMessages: a.HistoryMessages,
			DefaultModel: m.DefaultModel(), Prices: m.Prices, Lease: runLease(m, a), PromptMemories: a.PromptMemories},
		app.AutomationPolicy{AutoResolveAfter: a.AutoResolveAfter, FollowUpAfter: a.FollowUpAfter, MaxFollowUps: a.MaxFollowUps}
}

// buildProviders makes one provider per configured name, and the builtin model.
func buildProviders(m ModelsConfig, svc *app.Service) (map[string]assist.Provider, error) {
	out := map[string]assist.Provider{builtin.Name: builtin.New(svc)}
	for name, p := range m.Providers {
		if p.Timeout == 0 {
			p.Timeout = DefaultProviderTimeout
		}
		switch p.Type {
		case "openai":
			out[name] = openai.New(name, p.BaseURL, p.APIKey, p.Timeout, nil)
		case "anthropic":
			out[name] = anthropic.New(name, p.BaseURL, p.APIKey, p.Timeout, nil)
		default: // config validation refuses other types
			return nil, fmt.Errorf("config: models.providers.%s: unknown type %q", name, p.Type)
		}
	}
	return out, nil
}

// runLease is how long a run may go without writing before it counts as a dead process's:
// every attempt timing out and waiting the longest backoff, the fallback too, and a minute.
func runLease(m ModelsConfig, a AssistantsConfig) time.Duration {
	longest := DefaultProviderTimeout
	for _, p := range m.Providers {
		longest = max(longest, p.Timeout)
	}
	return time.Duration(a.Retries+2)*(longest+assist.MaxBackoff) + time.Minute
}

// modelChoices are the models the web app's assistant form offers: the default and the
// fallback, the priced models, and each configured provider's prefix ("name:") to type a
// model of it after.
func modelChoices(m ModelsConfig) []string {
	out := []string{m.DefaultModel()}
	if m.Fallback != "" {
		out = append(out, m.Fallback)
	}
	out = append(out, slices.Sorted(maps.Keys(m.Prices))...)
	for _, name := range slices.Sorted(maps.Keys(m.Providers)) {
		out = append(out, name+":")
	}
	return out
}
