package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// mapLeaves are keys whose value is a map of entries the operator names; they count as one key.
var mapLeaves = map[string]bool{"oauth.providers": true, "models.providers": true, "models.prices": true}

// yamlLeaves lists the dotted keys of every leaf of a YAML mapping.
func yamlLeaves(prefix string, m map[string]any, out map[string]bool) {
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok && !mapLeaves[key] {
			yamlLeaves(key, sub, out)
			continue
		}
		out[key] = true
	}
}

// structLeaves lists the dotted mapstructure keys of every leaf field of a config struct.
func structLeaves(prefix string, t reflect.Type, out map[string]bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		key := f.Tag.Get("mapstructure")
		if prefix != "" {
			key = prefix + "." + key
		}
		if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(time.Time{}) {
			structLeaves(key, f.Type, out)
			continue
		}
		out[key] = true
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestExampleConfigListsEveryKey: config.example.yaml, the defaults map and the Config struct
// name the same keys, and the example's values are the defaults.
func TestExampleConfigListsEveryKey(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("config.example.yaml: %v", err)
	}
	inFile := map[string]bool{}
	yamlLeaves("", doc, inFile)
	known := map[string]bool{}
	for k := range defaults {
		known[k] = true
	}
	inStruct := map[string]bool{}
	structLeaves("", reflect.TypeOf(Config{}), inStruct)

	for _, k := range sortedKeys(known) {
		if !inFile[k] {
			t.Errorf("config.example.yaml does not list %s", k)
		}
		if !inStruct[k] {
			t.Errorf("defaults has %s, which Config does not read", k)
		}
	}
	for _, k := range sortedKeys(inFile) {
		if !known[k] && !mapLeaves[k] {
			t.Errorf("config.example.yaml lists %s, which is not a known key", k)
		}
	}
	for _, k := range sortedKeys(inStruct) {
		if !known[k] && !mapLeaves[k] {
			t.Errorf("Config reads %s, which has no default", k)
		}
	}

	// The values of the example are the defaults.
	v, err := newViper("../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := decodeConfig(v)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := normalize(fromFile), normalize(DefaultConfig()); !reflect.DeepEqual(got, want) {
		t.Errorf("config.example.yaml decodes to\n%+v\nthe defaults are\n%+v", got, want)
	}
}

// normalize makes empty and nil slices and maps compare equal.
func normalize(c Config) Config {
	if len(c.HTTP.TrustedProxies) == 0 {
		c.HTTP.TrustedProxies = nil
	}
	if len(c.HTTP.TLS.ACMEDomains) == 0 {
		c.HTTP.TLS.ACMEDomains = nil
	}
	if len(c.HTTP.CORS.AllowedOrigins) == 0 {
		c.HTTP.CORS.AllowedOrigins = nil
	}
	if len(c.OAuth.Providers) == 0 {
		c.OAuth.Providers = nil
	}
	if len(c.Models.Providers) == 0 {
		c.Models.Providers = nil
	}
	if len(c.Models.Prices) == 0 {
		c.Models.Prices = nil
	}
	return c
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	want := []struct {
		name      string
		got, want any
	}{
		{"db.path", c.DB.Path, "app.db"},
		{"http.addr", c.HTTP.Addr, "127.0.0.1:8080"},
		{"http.public_url", c.HTTP.PublicURL, "http://127.0.0.1:8080"},
		{"http.rate_limit_per_minute", c.HTTP.RateLimitPerMinute, 500},
		{"http.max_body_bytes", c.HTTP.MaxBodyBytes, int64(16 << 20)},
		{"webhooks.tick", c.Webhooks.Tick, time.Second},
		{"webhooks.workers", c.Webhooks.Workers, 16},
		{"webhooks.timeout", c.Webhooks.Timeout, 10 * time.Second},
		{"webhooks.retry_schedule", c.Webhooks.RetrySchedule,
			[]time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour}},
		{"webhooks.disable_after", c.Webhooks.DisableAfter, 30},
		{"webhooks.retention", c.Webhooks.Retention, 168 * time.Hour},
		{"webhooks.allow_private_targets", c.Webhooks.AllowPrivateTargets, false},
		{"log.level", c.Log.Level, "info"},
		{"log.format", c.Log.Format, "text"},
		{"secrets.key_file", c.Secrets.KeyFile, ""},
		{"secrets key file in use", c.keyFile(), "app.key"},
		{"knowledge.max_pages", c.Knowledge.MaxPages, 50},
		{"knowledge.workers", c.Knowledge.Workers, 4},
		{"webhooks.max_in_flight_per_org", c.Webhooks.MaxInFlightPerOrg, 0},
		{"email.max_in_flight_per_org", c.Email.MaxInFlightPerOrg, 0},
		{"knowledge.max_in_flight_per_org", c.Knowledge.MaxInFlightPerOrg, 0},
		{"knowledge.max_extract_seconds", c.Knowledge.MaxExtractSeconds, 30},
		{"knowledge.max_pages_per_file", c.Knowledge.MaxPagesPerFile, 1000},
		{"knowledge.max_file_bytes", c.Knowledge.MaxFileBytes, int64(10 << 20)},
		{"http.shutdown_timeout", c.HTTP.ShutdownTimeout, 30 * time.Second},
		{"http.max_connections", c.HTTP.MaxConnections, 10000},
		{"events.max_streams", c.Events.MaxStreams, 8000},
		{"events.max_streams_per_key", c.Events.MaxStreamsPerKey, 50},
		{"events.max_streams_per_member", c.Events.MaxStreamsPerMember, 100},
		{"events.max_streams_per_ip", c.Events.MaxStreamsPerIP, 200},
	}
	for _, w := range want {
		if !reflect.DeepEqual(w.got, w.want) {
			t.Errorf("%s = %v, want %v", w.name, w.got, w.want)
		}
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const fileConfig = `
db:
  path: /data/from-file.db
http:
  addr: 127.0.0.1:9999
  rate_limit_per_minute: 42
  trusted_proxies: [10.0.0.0/8]
webhooks:
  retry_schedule: [1s, 2m]
oauth:
  providers:
    HUBSPOT:
      client_id: abc
      scopes: [read, write]
`

// TestConfigLayers: defaults < --config file < APP_* environment. Not parallel: it sets the
// environment.
func TestConfigLayers(t *testing.T) {
	file := writeFile(t, "config.yaml", fileConfig)
	load := func(t *testing.T, path string) Config {
		t.Helper()
		v, err := newViper(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := decodeConfig(v)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	t.Run("file overrides defaults", func(t *testing.T) {
		c := load(t, file)
		if c.DB.Path != "/data/from-file.db" || c.HTTP.Addr != "127.0.0.1:9999" || c.HTTP.RateLimitPerMinute != 42 {
			t.Errorf("from file: %+v", c)
		}
		if c.HTTP.MaxBodyBytes != 16<<20 || c.Webhooks.Workers != 16 {
			t.Errorf("keys absent from the file lost their defaults: %+v", c)
		}
		if !reflect.DeepEqual(c.Webhooks.RetrySchedule, []time.Duration{time.Second, 2 * time.Minute}) {
			t.Errorf("retry_schedule %v", c.Webhooks.RetrySchedule)
		}
		if p := c.OAuth.Providers["hubspot"]; p.ClientID != "abc" || len(p.Scopes) != 2 {
			t.Errorf("oauth providers %+v", c.OAuth.Providers)
		}
		if c.keyFile() != "/data/app.key" || c.HTTP.PublicURL != "http://127.0.0.1:9999" {
			t.Errorf("derived defaults: key file %s, public url %s", c.keyFile(), c.HTTP.PublicURL)
		}
	})
	t.Run("environment overrides file", func(t *testing.T) {
		t.Setenv("APP_HTTP_ADDR", "127.0.0.1:7777")
		t.Setenv("APP_HTTP_TRUSTED_PROXIES", "192.168.0.0/16,127.0.0.1")
		t.Setenv("APP_WEBHOOKS_TICK", "250ms")
		t.Setenv("APP_HTTP_TLS_CERT_FILE", "/tls/cert.pem")
		t.Setenv("APP_HTTP_TLS_KEY_FILE", "/tls/key.pem")
		c := load(t, file)
		if c.HTTP.Addr != "127.0.0.1:7777" || c.DB.Path != "/data/from-file.db" {
			t.Errorf("addr %s db %s", c.HTTP.Addr, c.DB.Path)
		}
		if !reflect.DeepEqual(c.HTTP.TrustedProxies, []string{"192.168.0.0/16", "127.0.0.1"}) {
			t.Errorf("trusted proxies %v", c.HTTP.TrustedProxies)
		}
		if c.Webhooks.Tick != 250*time.Millisecond || c.HTTP.TLS.CertFile != "/tls/cert.pem" {
			t.Errorf("tick %v cert %s", c.Webhooks.Tick, c.HTTP.TLS.CertFile)
		}
		if c.HTTP.PublicURL != "https://127.0.0.1:7777" {
			t.Errorf("public url with TLS %s", c.HTTP.PublicURL)
		}
	})
	t.Run("environment overrides defaults", func(t *testing.T) {
		t.Setenv("APP_DB_PATH", "/env/app.db")
		if c := load(t, ""); c.DB.Path != "/env/app.db" {
			t.Errorf("db %s", c.DB.Path)
		}
	})
	t.Run("flags override environment", func(t *testing.T) {
		dir := t.TempDir()
		envPath, flagPath := filepath.Join(dir, "env.db"), filepath.Join(dir, "flag.db")
		t.Setenv("APP_DB_PATH", envPath)
		cmd := NewRootCmd()
		cmd.SetOut(new(strings.Builder))
		cmd.SetErr(new(strings.Builder))
		cmd.SetArgs([]string{"migrate", "up", "--db", flagPath})
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(flagPath); err != nil {
			t.Errorf("--db was not used: %v", err)
		}
		if _, err := os.Stat(envPath); err == nil {
			t.Error("APP_DB_PATH won over --db")
		}
	})
	t.Run("./config.yaml is read when present", func(t *testing.T) {
		t.Chdir(filepath.Dir(file))
		if c := load(t, ""); c.HTTP.Addr != "127.0.0.1:9999" {
			t.Errorf("addr %s", c.HTTP.Addr)
		}
	})
	t.Run("a missing --config file is an error", func(t *testing.T) {
		if _, err := newViper(filepath.Join(t.TempDir(), "nope.yaml")); err == nil {
			t.Error("no error")
		}
	})
}

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, yaml, want string
	}{
		{"cert without key", "http: {tls: {cert_file: c.pem}}", "go together"},
		{"bad proxy", "http: {trusted_proxies: [nonsense]}", "trusted_proxies"},
		{"no workers", "webhooks: {workers: 0}", "webhooks.workers"},
		{"bad duration", "webhooks: {tick: soon}", "tick"},
		{"empty db path", "db: {path: ''}", "db.path"},
		{"unknown key", "http: {adress: ':80'}", "adress"},
		{"unknown section", "htp: {addr: ':80'}", "htp"},
		{"log format", "log: {format: xml}", "log.format"},
		{"log level", "log: {level: verbose}", "log.level"},
		{"negative rate limit", "http: {rate_limit_per_minute: -1}", "http.rate_limit_per_minute"},
		{"no read timeout", "http: {read_timeout: 0s}", "http.read_timeout"},
		{"no connections", "http: {max_connections: 0}", "http.max_connections"},
		{"no body rate", "http: {min_body_rate: 0}", "http.min_body_rate"},
		{"no knowledge workers", "knowledge: {workers: 0}", "knowledge.workers"},
		{"negative org cap", "email: {max_in_flight_per_org: -1}", "max_in_flight_per_org"},
		{"sender not an address", "email: {from: 'Acme Support'}", "email.from"},
		{"no shutdown time", "http: {shutdown_timeout: 0s}", "http.shutdown_timeout"},
		{"no extraction time", "knowledge: {max_extract_seconds: 0}", "knowledge.max_extract_seconds"},
		{"no pages per file", "knowledge: {max_pages_per_file: -1}", "knowledge.max_pages_per_file"},
		{"no file bytes", "knowledge: {max_file_bytes: 0}", "knowledge.max_file_bytes"},
		{"no streams per key", "events: {max_streams_per_key: 0}", "events.max_streams_per_key"},
		{"no streams per ip", "events: {max_streams_per_ip: -1}", "events.max_streams_per_ip"},
		{"streams fill the connections", "{http: {max_connections: 100}, events: {max_streams: 100}}", "at most 90"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, err := newViper(writeFile(t, "c.yaml", tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			_, err = decodeConfig(v)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
}

// A bad value set in the environment is named by its variable, not only by its key.
func TestConfigErrorNamesTheEnvironmentVariable(t *testing.T) {
	t.Setenv("APP_HTTP_RATE_LIMIT_PER_MINUTE", "abc")
	v, err := newViper("")
	if err != nil {
		t.Fatal(err)
	}
	_, err = decodeConfig(v)
	if err == nil || !strings.Contains(err.Error(), "APP_HTTP_RATE_LIMIT_PER_MINUTE") {
		t.Fatalf("error %v, want one naming APP_HTTP_RATE_LIMIT_PER_MINUTE", err)
	}
}
