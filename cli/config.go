package cli

import (
	"fmt"
	"maps"
	netmail "net/mail"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
)

// Config is every setting the binary reads. cli builds it once and passes parts of it down;
// no other package reads configuration.
type Config struct {
	DB         DBConfig         `mapstructure:"db"`
	HTTP       HTTPConfig       `mapstructure:"http"`
	Webhooks   WebhooksConfig   `mapstructure:"webhooks"`
	Log        LogConfig        `mapstructure:"log"`
	Secrets    SecretsConfig    `mapstructure:"secrets"`
	DNS        DNSConfig        `mapstructure:"dns"`
	Email      EmailConfig      `mapstructure:"email"`
	OAuth      OAuthConfig      `mapstructure:"oauth"`
	Knowledge  KnowledgeConfig  `mapstructure:"knowledge"`
	Events     EventsConfig     `mapstructure:"events"`
	Models     ModelsConfig     `mapstructure:"models"`
	Assistants AssistantsConfig `mapstructure:"assistants"`
	Channels   ChannelsConfig   `mapstructure:"channels"`
	Metrics    MetricsConfig    `mapstructure:"metrics"`
	Debug      DebugConfig      `mapstructure:"debug"`
}

// EventsConfig tunes the live streams (SSE).
type EventsConfig struct {
	StreamRetention time.Duration `mapstructure:"stream_retention"`
	StreamHeartbeat time.Duration `mapstructure:"stream_heartbeat"`
	StreamBuffer    int           `mapstructure:"stream_buffer"`
	// The streams' own budget (app/budget, docs/operations.md "Streams"): open SSE streams
	// in all, and per API key, member and client IP.
	MaxStreams          int `mapstructure:"max_streams"`
	MaxStreamsPerKey    int `mapstructure:"max_streams_per_key"`
	MaxStreamsPerMember int `mapstructure:"max_streams_per_member"`
	MaxStreamsPerIP     int `mapstructure:"max_streams_per_ip"`
}

// DBConfig locates the SQLite file.
type DBConfig struct {
	Path string `mapstructure:"path"`
	// InboxCacheChats bounds the chats of recent inbox answers kept in memory, and as many
	// loaded chats and search lists (sqlite/inboxview.go) (0: none).
	InboxCacheChats int `mapstructure:"inbox_cache_chats"`
}

// HTTPConfig is the listener and the request limits.
type HTTPConfig struct {
	Addr               string    `mapstructure:"addr"`
	PublicURL          string    `mapstructure:"public_url"`
	TLS                TLSConfig `mapstructure:"tls"`
	TrustedProxies     []string  `mapstructure:"trusted_proxies"`
	RateLimitPerMinute int       `mapstructure:"rate_limit_per_minute"`
	MaxBodyBytes       int64     `mapstructure:"max_body_bytes"`
	// The server's self-protection (docs/operations.md, "HTTP limits").
	ReadHeaderTimeout time.Duration `mapstructure:"read_header_timeout"`
	ReadTimeout       time.Duration `mapstructure:"read_timeout"`
	MinBodyRate       int64         `mapstructure:"min_body_rate"`
	WriteTimeout      time.Duration `mapstructure:"write_timeout"`
	IdleTimeout       time.Duration `mapstructure:"idle_timeout"`
	MaxHeaderBytes    int           `mapstructure:"max_header_bytes"`
	MaxConnections    int           `mapstructure:"max_connections"`
	// ShutdownTimeout bounds the drain of requests and, at the same time, the workers' stop.
	ShutdownTimeout time.Duration `mapstructure:"shutdown_timeout"`

	// For browsers and load balancers (cli/ops.go).
	CORS       CORSConfig    `mapstructure:"cors"`
	Compress   bool          `mapstructure:"compress"`
	DrainDelay time.Duration `mapstructure:"drain_delay"`
	// KeptAnswers serves GET contact and contact pages from answers kept encoded while their
	// organization is unchanged (app/api/kept.go, docs/decisions/kept-answers.md).
	KeptAnswers bool `mapstructure:"kept_answers"`
}

// TLSConfig serves HTTPS from files or from ACME.
type TLSConfig struct {
	CertFile    string   `mapstructure:"cert_file"`
	KeyFile     string   `mapstructure:"key_file"`
	ACMEDomains []string `mapstructure:"acme_domains"`
}

// WebhooksConfig tunes the delivery pipeline.
type WebhooksConfig struct {
	Tick                time.Duration   `mapstructure:"tick"`
	Workers             int             `mapstructure:"workers"`
	Timeout             time.Duration   `mapstructure:"timeout"`
	RetrySchedule       []time.Duration `mapstructure:"retry_schedule"`
	DisableAfter        int             `mapstructure:"disable_after"`
	Retention           time.Duration   `mapstructure:"retention"`
	AllowPrivateTargets bool            `mapstructure:"allow_private_targets"`
	CAFile              string          `mapstructure:"ca_file"`
	// MaxInFlightPerOrg caps one organization's deliveries in flight; 0: three quarters of the workers.
	MaxInFlightPerOrg int `mapstructure:"max_in_flight_per_org"`
}

// LogConfig is the slog level and format.
type LogConfig struct {
	Level  string `mapstructure:"level"`
	Format string `mapstructure:"format"`
}

// SecretsConfig locates the key that seals secrets at rest.
type SecretsConfig struct {
	KeyFile string `mapstructure:"key_file"`
}

// DNSConfig names the resolver used to verify domains.
type DNSConfig struct {
	Resolver string `mapstructure:"resolver"`
}

// EmailConfig is the SMTP relay and the broadcast sender.
type EmailConfig struct {
	SMTPURL string `mapstructure:"smtp_url"`
	CAFile  string `mapstructure:"ca_file"`
	// From is the sender of the server's own mail through the relay (the web app's invites
	// and new-password links); "": those links are only shown.
	From    string        `mapstructure:"from"`
	Workers int           `mapstructure:"workers"`
	Tick    time.Duration `mapstructure:"tick"`
	// MaxInFlightPerOrg caps one organization's messages in flight; 0: three quarters of the workers.
	MaxInFlightPerOrg int `mapstructure:"max_in_flight_per_org"`
	// Inbound is the email channel's SMTP listener; MaxAutoRepliesPerHour the assistant's
	// answers per contact an hour (cli/emailchannel.go).
	Inbound               EmailInboundConfig `mapstructure:"inbound"`
	MaxAutoRepliesPerHour int                `mapstructure:"max_auto_replies_per_hour"`
	// The IMAP poller of email integrations (cli/mailbox.go).
	IMAPPoll           time.Duration `mapstructure:"imap_poll"`
	IMAPMaxConnections int           `mapstructure:"imap_max_connections"`
	IMAPTimeout        time.Duration `mapstructure:"imap_timeout"`
}

// OAuthConfig holds one provider per connection type.
type OAuthConfig struct {
	Providers map[string]OAuthProvider `mapstructure:"providers"`
}

// OAuthProvider is one OAuth2 provider's endpoints and client credentials.
type OAuthProvider struct {
	ClientID     string   `mapstructure:"client_id"`
	ClientSecret string   `mapstructure:"client_secret"`
	AuthURL      string   `mapstructure:"auth_url"`
	TokenURL     string   `mapstructure:"token_url"`
	UserinfoURL  string   `mapstructure:"userinfo_url"`
	APIURL       string   `mapstructure:"api_url"`
	Scopes       []string `mapstructure:"scopes"`
}

// KnowledgeConfig bounds crawls and the extraction of each file or page, and sizes the
// processor.
type KnowledgeConfig struct {
	MaxPages          int           `mapstructure:"max_pages"`
	Tick              time.Duration `mapstructure:"tick"`
	MaxExtractSeconds int           `mapstructure:"max_extract_seconds"`
	MaxPagesPerFile   int           `mapstructure:"max_pages_per_file"`
	MaxFileBytes      int64         `mapstructure:"max_file_bytes"`
	Workers           int           `mapstructure:"workers"`
	// MaxInFlightPerOrg caps one organization's contents in flight; 0: three quarters of the workers.
	MaxInFlightPerOrg int `mapstructure:"max_in_flight_per_org"`
}

// defaults is every key the code reads with its default; config.example.yaml must list each.
var defaults = map[string]any{
	"db.path":                        "app.db",
	"db.inbox_cache_chats":           20000,
	"http.addr":                      "127.0.0.1:8080",
	"http.public_url":                "",
	"http.tls.cert_file":             "",
	"http.tls.key_file":              "",
	"http.tls.acme_domains":          []string{},
	"http.trusted_proxies":           []string{},
	"http.rate_limit_per_minute":     500,
	"http.max_body_bytes":            16 << 20,
	"http.read_header_timeout":       "10s",
	"http.read_timeout":              "30s",
	"http.min_body_rate":             64 << 10,
	"http.write_timeout":             "60s",
	"http.idle_timeout":              "2m",
	"http.max_header_bytes":          64 << 10,
	"http.max_connections":           10000,
	"http.shutdown_timeout":          "30s",
	"webhooks.tick":                  "1s",
	"webhooks.workers":               16,
	"webhooks.timeout":               "10s",
	"webhooks.retry_schedule":        []string{"5s", "5m", "30m", "2h", "5h", "10h"},
	"webhooks.disable_after":         30,
	"webhooks.retention":             "168h",
	"webhooks.allow_private_targets": false,
	"webhooks.ca_file":               "",
	"log.level":                      "info",
	"log.format":                     "text",
	"secrets.key_file":               "",
	"dns.resolver":                   "",
	"email.smtp_url":                 "",
	"email.ca_file":                  "",
	"email.from":                     "",
	"email.workers":                  8,
	"email.tick":                     "1s",
	"knowledge.max_pages":            50,
	"knowledge.tick":                 "1s",
	"knowledge.workers":              4,

	// Caps on one organization's work in flight; 0: three quarters of the workers (app.OrgShare).
	"webhooks.max_in_flight_per_org":   0,
	"email.max_in_flight_per_org":      0,
	"knowledge.max_in_flight_per_org":  0,
	"events.stream_retention":          "24h",
	"events.stream_heartbeat":          "15s",
	"events.stream_buffer":             1024,
	"events.max_streams":               8000,
	"events.max_streams_per_key":       50,
	"events.max_streams_per_member":    100,
	"events.max_streams_per_ip":        200,
	"knowledge.max_extract_seconds":    30,
	"knowledge.max_pages_per_file":     1000,
	"knowledge.max_file_bytes":         10 << 20,
	"models.default":                   "",
	"models.fallback":                  "",
	"assistants.workers":               8,
	"assistants.tick":                  "250ms",
	"assistants.debounce":              "1s",
	"assistants.flush_interval":        "250ms",
	"assistants.history_messages":      40,
	"assistants.retries":               3,
	"metrics.addr":                     "",
	"metrics.token":                    "",
	"debug.pprof_addr":                 "",
	"http.cors.allowed_origins":        []string{},
	"http.compress":                    true,
	"http.kept_answers":                true,
	"http.drain_delay":                 "0s",
	"assistants.auto_resolve_after":    "24h",
	"assistants.follow_up_after":       "4h",
	"assistants.max_follow_ups":        1,
	"assistants.max_steps":             8,
	"assistants.max_in_flight_per_org": 0,
	"assistants.prompt_memories":       20,
}

// newViper layers defaults, the config file, APP_* environment variables (flags are bound by
// the commands that have them).
func newViper(configFile string) (*viper.Viper, error) {
	v := viper.New()
	for k, val := range defaults {
		v.SetDefault(k, val)
	}
	v.SetEnvPrefix("APP")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	if configFile == "" {
		if _, err := os.Stat("config.yaml"); err == nil {
			configFile = "config.yaml"
		}
	}
	if configFile != "" {
		v.SetConfigFile(configFile)
		if err := v.ReadInConfig(); err != nil {
			return nil, fmt.Errorf("config: read %s: %w", configFile, err)
		}
	}
	return v, nil
}

// decodeConfig turns the layered settings into a Config and fills derived defaults.
func decodeConfig(v *viper.Viper) (Config, error) {
	var c Config
	hook := mapstructure.ComposeDecodeHookFunc(
		mapstructure.StringToTimeDurationHookFunc(),
		mapstructure.StringToSliceHookFunc(","),
		skipPrices,
	)
	prices, err := readPrices(v)
	if err != nil {
		return c, err
	}
	strict := func(dc *mapstructure.DecoderConfig) { dc.ErrorUnused = true }
	if err := v.Unmarshal(&c, viper.DecodeHook(hook), strict); err != nil {
		// mapstructure's preamble says nothing; keep the lines that name the keys.
		msg := strings.TrimSpace(strings.TrimPrefix(err.Error(), "decoding failed due to the following error(s):"))
		return c, fmt.Errorf("config: %s%s", msg, envSources(err))
	}
	c.Models.Prices = prices
	if c.HTTP.PublicURL == "" {
		scheme := "http://"
		if c.HTTP.TLS.CertFile != "" || len(c.HTTP.TLS.ACMEDomains) > 0 {
			scheme = "https://"
		}
		c.HTTP.PublicURL = scheme + c.HTTP.Addr
	}
	return c, c.validate()
}

func (c Config) validate() error {
	if err := c.Channels.validate(); err != nil {
		return err
	}
	if err := c.Email.validateMailbox(); err != nil {
		return err
	}
	if _, err := c.Email.systemSender(); err != nil {
		return err
	}
	if c.DB.Path == "" {
		return fmt.Errorf("config: db.path is empty")
	}
	if c.DB.InboxCacheChats < 0 {
		return fmt.Errorf("config: db.inbox_cache_chats is negative")
	}
	if !slices.Contains(logLevels, strings.ToLower(c.Log.Level)) {
		return fmt.Errorf("config: log.level %q is not one of %s", c.Log.Level, strings.Join(logLevels, ", "))
	}
	if c.Log.Format != "text" && c.Log.Format != "json" {
		return fmt.Errorf("config: log.format %q is not text or json", c.Log.Format)
	}
	if c.HTTP.RateLimitPerMinute < 0 {
		return fmt.Errorf("config: http.rate_limit_per_minute is negative (0 turns rate limiting off)")
	}
	if _, err := c.trustedProxies(); err != nil {
		return err
	}
	if c.HTTP.ShutdownTimeout <= 0 {
		return fmt.Errorf("config: http.shutdown_timeout must be positive")
	}
	if (c.HTTP.TLS.CertFile == "") != (c.HTTP.TLS.KeyFile == "") {
		return fmt.Errorf("config: http.tls.cert_file and http.tls.key_file go together")
	}
	if err := c.HTTP.validateLimits(); err != nil {
		return err
	}
	if c.Webhooks.Workers < 1 || c.Webhooks.Tick <= 0 || c.Webhooks.Timeout <= 0 {
		return fmt.Errorf("config: webhooks.workers, webhooks.tick and webhooks.timeout must be positive")
	}
	if c.Knowledge.MaxPages < 1 || c.Knowledge.Tick <= 0 || c.Knowledge.Workers < 1 {
		return fmt.Errorf("config: knowledge.max_pages, knowledge.tick and knowledge.workers must be positive")
	}
	if c.Webhooks.MaxInFlightPerOrg < 0 || c.Email.MaxInFlightPerOrg < 0 || c.Knowledge.MaxInFlightPerOrg < 0 {
		return fmt.Errorf("config: max_in_flight_per_org must not be negative (0: three quarters of the workers)")
	}
	if c.Events.StreamRetention <= 0 || c.Events.StreamHeartbeat <= 0 || c.Events.StreamBuffer < 1 {
		return fmt.Errorf("config: events.stream_retention, events.stream_heartbeat and events.stream_buffer must be positive")
	}
	if err := c.Events.validateStreams(c.HTTP.MaxConnections); err != nil {
		return err
	}
	if k := c.Knowledge; k.MaxExtractSeconds < 1 || k.MaxPagesPerFile < 1 || k.MaxFileBytes < 1 {
		return fmt.Errorf("config: knowledge.max_extract_seconds, knowledge.max_pages_per_file and knowledge.max_file_bytes must be positive")
	}
	if c.Email.Workers < 1 || c.Email.Tick <= 0 {
		return fmt.Errorf("config: email.workers and email.tick must be positive")
	}
	if err := c.Email.validateChannel(); err != nil {
		return err
	}
	if err := c.Assistants.validate(); err != nil {
		return err
	}
	return c.Models.validate()
}

var logLevels = []string{"debug", "info", "warn", "error"}

// envSources names the APP_* environment variables behind the keys a decode error quotes, so
// a bad value set in the environment is not looked for in the configuration file.
func envSources(err error) string {
	var names []string
	for _, key := range slices.Sorted(maps.Keys(defaults)) {
		env := "APP_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
		if _, set := os.LookupEnv(env); set && strings.Contains(err.Error(), "'"+key+"'") {
			names = append(names, env)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (set by the environment variable " + strings.Join(names, ", ") + ")"
}

// keyFile is secrets.key_file, by default app.key beside the database.
func (c Config) keyFile() string {
	if c.Secrets.KeyFile != "" {
		return c.Secrets.KeyFile
	}
	return filepath.Join(filepath.Dir(c.DB.Path), "app.key")
}

// trustedProxies parses http.trusted_proxies; a bare address is a /32 or /128.
func (c Config) trustedProxies() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range c.HTTP.TrustedProxies {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("config: http.trusted_proxies: %q is not a CIDR or address", s)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// systemSender is email.from parsed; nil when unset.
func (c EmailConfig) systemSender() (*netmail.Address, error) {
	if c.From == "" {
		return nil, nil
	}
	a, err := netmail.ParseAddress(c.From)
	if err != nil {
		return nil, fmt.Errorf("config: email.from %q is not an address (\"Name <help@example.com>\" or \"help@example.com\")", c.From)
	}
	return a, nil
}
