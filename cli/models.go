package cli

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"

	"wsapi/app"
	"wsapi/app/assist/builtin"
)

// ModelsConfig names the models behind assistant runs and the providers that serve them.
type ModelsConfig struct {
	// Default is the model behind auto:auto; empty: builtin:retrieval.
	Default string `mapstructure:"default"`
	// Fallback is tried once when the first model fails before its first token.
	Fallback string `mapstructure:"fallback"`
	// Providers by name, the part of a model id before ":".
	Providers map[string]ModelProvider `mapstructure:"providers"`
	// Prices by model id (lowercase), per million tokens in balance units; read by
	// readPrices, not by Unmarshal.
	Prices Prices `mapstructure:"prices"`
}

// ModelProvider is one configured provider. The API key is never logged or answered.
type ModelProvider struct {
	Type    string        `mapstructure:"type"` // openai or anthropic
	BaseURL string        `mapstructure:"base_url"`
	APIKey  string        `mapstructure:"api_key"`
	Timeout time.Duration `mapstructure:"timeout"`
}

// AssistantsConfig tunes the run worker.
type AssistantsConfig struct {
	Workers         int           `mapstructure:"workers"`
	Tick            time.Duration `mapstructure:"tick"`
	Debounce        time.Duration `mapstructure:"debounce"`
	FlushInterval   time.Duration `mapstructure:"flush_interval"`
	HistoryMessages int           `mapstructure:"history_messages"`
	Retries         int           `mapstructure:"retries"`
	// Automation (docs/assistants.md, "Automation").
	AutoResolveAfter time.Duration `mapstructure:"auto_resolve_after"`
	FollowUpAfter    time.Duration `mapstructure:"follow_up_after"`
	MaxFollowUps     int           `mapstructure:"max_follow_ups"`
	MaxSteps         int           `mapstructure:"max_steps"`
	// MaxInFlightPerOrg caps one organization's runs at once; 0: three quarters of the workers.
	MaxInFlightPerOrg int `mapstructure:"max_in_flight_per_org"`
	PromptMemories    int `mapstructure:"prompt_memories"`
}

// DefaultProviderTimeout is a provider's time limit per request when none is configured.
const DefaultProviderTimeout = 120 * time.Second

// BuiltinModel is the embedded model, the default when no provider is configured.
const BuiltinModel = "builtin:retrieval"

// Prices are model prices by lowercase model id.
type Prices map[string]app.Price

// skipPrices is the decode hook that leaves models.prices to readPrices: Unmarshal sees
// viper's settings re-nested at every dot, so the key "openai:gpt-4.1" would reach it as
// "openai:gpt-4" > "1".
func skipPrices(_ reflect.Type, to reflect.Type, data any) (any, error) {
	if to == reflect.TypeFor[Prices]() {
		return map[string]any{}, nil
	}
	return data, nil
}

// readPrices reads models.prices whole (v.Get keeps the keys as written, lowercased).
func readPrices(v *viper.Viper) (Prices, error) {
	out := Prices{}
	raw, ok := v.Get("models.prices").(map[string]any)
	if !ok || len(raw) == 0 {
		return out, nil
	}
	var prices map[string]struct {
		Input      float64 `mapstructure:"input"`
		Output     float64 `mapstructure:"output"`
		CacheRead  float64 `mapstructure:"cache_read"`
		CacheWrite float64 `mapstructure:"cache_write"`
		// Audio models: per minute transcribed, per million characters spoken.
		AudioMinute        float64 `mapstructure:"audio_minute"`
		SpeechMillionChars float64 `mapstructure:"speech_million_characters"`
	}
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{WeaklyTypedInput: true, ErrorUnused: true, Result: &prices})
	if err == nil {
		err = dec.Decode(raw)
	}
	if err != nil {
		return nil, fmt.Errorf("config: models.prices: %w", err)
	}
	for model, p := range prices {
		out[strings.ToLower(model)] = app.Price{Input: p.Input, Output: p.Output, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite,
			AudioMinute: p.AudioMinute, SpeechMillionChars: p.SpeechMillionChars}
	}
	return out, nil
}

// DefaultModel is models.default, or builtin:retrieval when it is empty.
func (m ModelsConfig) DefaultModel() string {
	if m.Default == "" {
		return BuiltinModel
	}
	return m.Default
}

func (m ModelsConfig) validate() error {
	for key, id := range map[string]string{"models.default": m.DefaultModel(), "models.fallback": m.Fallback} {
		if id != "" && (!app.ValidModel(id) || id == app.AutoModel) {
			return fmt.Errorf("config: %s %q is not a model id <provider>:<model>", key, id)
		}
	}
	if err := m.checkProviders(); err != nil {
		return err
	}
	for name, p := range m.Providers {
		if p.Type != "openai" && p.Type != "anthropic" {
			return fmt.Errorf("config: models.providers.%s.type must be openai or anthropic", name)
		}
		if name == "builtin" || name == "auto" {
			return fmt.Errorf("config: models.providers.%s: that name is reserved", name)
		}
		if p.Timeout < 0 {
			return fmt.Errorf("config: models.providers.%s.timeout is negative", name)
		}
	}
	for model, p := range m.Prices {
		if p.Input < 0 || p.Output < 0 || p.CacheRead < 0 || p.CacheWrite < 0 {
			return fmt.Errorf("config: models.prices.%s: prices must not be negative", model)
		}
	}
	return nil
}

// checkProviders refuses a models.default or models.fallback whose provider is neither the
// built-in one nor configured: every run would fail on it, and only the run would say so.
func (m ModelsConfig) checkProviders() error {
	for _, key := range []string{"models.default", "models.fallback"} {
		id := m.Fallback
		if key == "models.default" {
			id = m.DefaultModel()
		}
		name, _, _ := strings.Cut(id, ":")
		if _, ok := m.Providers[name]; id == "" || ok || name == builtin.Name {
			continue
		}
		known := append([]string{builtin.Name}, slices.Sorted(maps.Keys(m.Providers))...)
		return fmt.Errorf("config: %s %q names the provider %q, which is not configured: add models.providers.%s "+
			"(type, base_url, api_key; see config.example.yaml) or name one of %s", key, id, name, name, strings.Join(known, ", "))
	}
	return nil
}

func (a AssistantsConfig) validate() error {
	if a.Workers < 1 || a.Tick <= 0 || a.FlushInterval <= 0 || a.HistoryMessages < 1 {
		return fmt.Errorf("config: assistants.workers, tick, flush_interval and history_messages must be positive")
	}
	if a.Debounce < 0 || a.Retries < 0 {
		return fmt.Errorf("config: assistants.debounce and assistants.retries must not be negative")
	}
	if a.AutoResolveAfter <= 0 || a.FollowUpAfter <= 0 || a.MaxFollowUps < 0 {
		return fmt.Errorf("config: assistants.auto_resolve_after and follow_up_after must be positive, " +
			"assistants.max_follow_ups not negative")
	}
	if a.MaxSteps < 1 || a.PromptMemories < 0 || a.MaxInFlightPerOrg < 0 {
		return fmt.Errorf("config: assistants.max_steps must be positive, assistants.prompt_memories and max_in_flight_per_org not negative")
	}
	return nil
}
