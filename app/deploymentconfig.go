package app

import (
	"net/url"
	"slices"
	"sort"
	"strings"
)

// MaxAllowedOrigins bounds a widget's allowed_origins.
const MaxAllowedOrigins = 50

// deploymentShapes lists, per integration type, the config and secret keys it takes (a key
// not listed is refused, naming it), the secrets it requires, and the secrets the server
// makes (never input; POST .../rotate makes them anew): the widget's identity key, the
// secret_token Telegram sends back with each update.
var deploymentShapes = map[string]struct {
	config, secrets, required, made []string
}{
	IntegrationInternal: {config: []string{"allowed_origins", "require_identity"}, made: []string{widgetSecretKey}},
	IntegrationEmail:    {config: []string{"identity_id", "inbound", "imap"}, secrets: []string{"imap_password"}},
	"telegram":          {secrets: []string{"bot_token"}, required: []string{"bot_token"}, made: []string{"webhook_secret"}},
	"whatsapp": {config: []string{"phone_number_id", "waba_id", "verify_token"},
		secrets: []string{"access_token", "app_secret"}, required: []string{"access_token", "app_secret"}},
	IntegrationCustom: {},
}

// validateDeployment checks an integration's config and secrets for its type (a patch's
// secrets are merged into the stored ones first, so the same rule holds).
func validateDeployment(p Problems, typ string, config map[string]any, secrets map[string]string) {
	shape := deploymentShapes[typ]
	for _, k := range sortedKeys(config) {
		if !slices.Contains(shape.config, k) {
			p.Add("config."+k, "is not a setting of "+typ+" integrations")
		}
	}
	for _, k := range sortedKeys(secrets) {
		if !slices.Contains(shape.secrets, k) {
			p.Add("secrets."+k, "is not a secret of "+typ+" integrations")
		} else if CharCount(secrets[k]) > 4096 {
			p.Add("secrets."+k, "must be at most 4096 characters")
		}
	}
	for _, k := range shape.required {
		if strings.TrimSpace(secrets[k]) == "" {
			p.Add("secrets."+k, "is required")
		}
	}
	switch typ {
	case IntegrationInternal:
		validateWidgetConfig(p, config)
	case IntegrationEmail:
		validateEmailConfig(p, config, secrets)
	case "whatsapp":
		for _, k := range []string{"phone_number_id", "waba_id"} {
			requiredString(p, config, k, 64)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// validateWidgetConfig: allowed_origins is a list of origins (scheme://host[:port], no path)
// that may frame the widget; empty lets any site frame it. require_identity is a boolean.
func validateWidgetConfig(p Problems, config map[string]any) {
	if v, ok := config["require_identity"]; ok {
		if _, isBool := v.(bool); !isBool {
			p.Add("config.require_identity", "must be a boolean")
		}
	}
	raw, ok := config["allowed_origins"]
	if !ok {
		return
	}
	list, isList := raw.([]any)
	if !isList {
		p.Add("config.allowed_origins", "must be a list of origins such as https://example.com")
		return
	}
	if len(list) > MaxAllowedOrigins {
		p.Add("config.allowed_origins", "must hold at most "+itoa(MaxAllowedOrigins)+" origins")
	}
	for i, o := range list {
		s, _ := o.(string)
		if !validOrigin(s) {
			p.Add("config.allowed_origins["+itoa(i)+"]", "must be an origin: http(s)://host[:port], without path, query or wildcard")
		}
	}
}

// validOrigin tells an http(s) origin with nothing after the host and port: it goes into a
// Content-Security-Policy header as it is, so it must hold nothing else.
func validOrigin(s string) bool {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return false
	}
	return u.Path == "" && u.RawQuery == "" && u.Fragment == "" && !strings.ContainsAny(s, " ;,*'\"") &&
		s == u.Scheme+"://"+u.Host
}

// AllowedOrigins is a widget's allowed_origins as strings.
func (d Deployment) AllowedOrigins() []string {
	list, _ := d.Config["allowed_origins"].([]any)
	out := make([]string, 0, len(list))
	for _, o := range list {
		if s, ok := o.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// RequireIdentity tells a widget that refuses anonymous visitors.
func (d Deployment) RequireIdentity() bool {
	v, _ := d.Config["require_identity"].(bool)
	return v
}

// validateEmailConfig: identity_id (an email identity), inbound smtp or imap, and for imap
// the mailbox to poll with its password as a secret.
func validateEmailConfig(p Problems, config map[string]any, secrets map[string]string) {
	requiredString(p, config, "identity_id", 255)
	inbound, _ := config["inbound"].(string)
	if inbound != "smtp" && inbound != "imap" {
		p.Add("config.inbound", "must be one of smtp, imap")
	}
	if inbound != "imap" {
		if _, ok := config["imap"]; ok {
			p.Add("config.imap", "is only for inbound imap")
		}
		return
	}
	imap, ok := config["imap"].(map[string]any)
	if !ok {
		p.Add("config.imap", "is required for inbound imap: {host, port, tls, username, mailbox}")
		return
	}
	for _, k := range sortedKeys(imap) {
		if !slices.Contains([]string{"host", "port", "tls", "username", "mailbox"}, k) {
			p.Add("config.imap."+k, "is not an IMAP setting")
		}
	}
	for _, k := range []string{"host", "username", "mailbox"} {
		if s, _ := imap[k].(string); strings.TrimSpace(s) == "" || CharCount(s) > 255 {
			p.Add("config.imap."+k, "is required, at most 255 characters")
		}
	}
	if port, ok := imap["port"].(float64); !ok || port != float64(int(port)) || port < 1 || port > 65535 {
		p.Add("config.imap.port", "must be a whole number from 1 to 65535")
	}
	if _, ok := imap["tls"].(bool); !ok {
		p.Add("config.imap.tls", "must be a boolean")
	}
	if secrets["imap_password"] == "" {
		p.Add("secrets.imap_password", "is required for inbound imap")
	}
}

func requiredString(p Problems, config map[string]any, key string, max int) {
	s, _ := config[key].(string)
	if strings.TrimSpace(s) == "" || CharCount(s) > max {
		p.Add("config."+key, "is required, at most "+itoa(max)+" characters")
	}
}
