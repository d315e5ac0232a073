package cli

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
)

// Config is every setting the binary reads. cli builds it once and passes parts of it down;
// no other package reads configuration.
type Config struct {
	DB        DBConfig        `mapstructure:"db"`
	HTTP      HTTPConfig      `mapstructure:"http"`
	Webhooks  WebhooksConfig  `mapstructure:"webhooks"`
	Log       LogConfig       `mapstructure:"log"`
	Secrets   SecretsConfig   `mapstructure:"secrets"`
	DNS       DNSConfig       `mapstructure:"dns"`
	Email     EmailConfig     `mapstructure:"email"`
	OAuth     OAuthConfig     `mapstructure:"oauth"`
	Knowledge KnowledgeConfig `mapstructure:"knowledge"`
	Metrics   MetricsConfig   `mapstructure:"metrics"`
}

// DBConfig locates the SQLite file.
type DBConfig struct {
	Path string `mapstructure:"path"`
	// InboxCacheChats bounds the chats of recent inbox answers kept in memory (0: none).
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

	// For browsers and load balancers (cli/ops.go).
	CORS       CORSConfig    `mapstructure:"cors"`
	Compress   bool          `mapstructure:"compress"`
	DrainDelay time.Duration `mapstructure:"drain_delay"`
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
	SMTPURL string        `mapstructure:"smtp_url"`
	CAFile  string        `mapstructure:"ca_file"`
	Workers int           `mapstructure:"workers"`
	Tick    time.Duration `mapstructure:"tick"`
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

// KnowledgeConfig bounds crawls.
type KnowledgeConfig struct {
	MaxPages int           `mapstructure:"max_pages"`
	Tick     time.Duration `mapstructure:"tick"`
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
	"email.workers":                  8,
	"email.tick":                     "1s",
	"knowledge.max_pages":            50,
	"knowledge.tick":                 "1s",
	"metrics.addr":                   "",
	"metrics.token":                  "",
	"http.cors.allowed_origins":      []string{},
	"http.compress":                  true,
	"http.drain_delay":               "0s",
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
	)
	if err := v.Unmarshal(&c, viper.DecodeHook(hook)); err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
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
	if c.DB.Path == "" {
		return fmt.Errorf("config: db.path is empty")
	}
	if c.DB.InboxCacheChats < 0 {
		return fmt.Errorf("config: db.inbox_cache_chats is negative")
	}
	if _, err := c.trustedProxies(); err != nil {
		return err
	}
	if (c.HTTP.TLS.CertFile == "") != (c.HTTP.TLS.KeyFile == "") {
		return fmt.Errorf("config: http.tls.cert_file and http.tls.key_file go together")
	}
	if c.Webhooks.Workers < 1 || c.Webhooks.Tick <= 0 || c.Webhooks.Timeout <= 0 {
		return fmt.Errorf("config: webhooks.workers, webhooks.tick and webhooks.timeout must be positive")
	}
	if c.Knowledge.MaxPages < 1 || c.Knowledge.Tick <= 0 {
		return fmt.Errorf("config: knowledge.max_pages and knowledge.tick must be positive")
	}
	if c.Email.Workers < 1 || c.Email.Tick <= 0 {
		return fmt.Errorf("config: email.workers and email.tick must be positive")
	}
	return nil
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
