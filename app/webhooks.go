package app

import (
	"context"
	"crypto/subtle"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"wsapi/app/netguard"
)

// Webhook is a customer's endpoint. Secret is the full signing secret inside the service;
// every read answers Masked().
type Webhook struct {
	ID                  string   `json:"id"`
	OrgID               string   `json:"org_id"`
	Name                string   `json:"name"`
	URL                 string   `json:"url"`
	Events              []string `json:"events"`
	Enabled             bool     `json:"enabled"`
	Secret              string   `json:"secret"`
	DisabledReason      *string  `json:"disabled_reason"`
	ConsecutiveFailures int      `json:"consecutive_failures"`
	CreatedAt           Time     `json:"created_at"`
	UpdatedAt           Time     `json:"updated_at"`
}

// Masked hides all but the start of the secret.
func (w Webhook) Masked() Webhook {
	if len(w.Secret) > 10 {
		w.Secret = w.Secret[:10] + "…"
	}
	return w
}

// SecretPrefix starts every signing secret.
const SecretPrefix = "whsec_"

// newSecret is whsec_ + 32 random bytes' worth of base62 (43 characters, 256 bits).
func newSecret() string { return SecretPrefix + RandomBase62(43) }

// WebhookTx is the endpoints part of a transaction. Secrets cross it in clear; the store
// seals them at rest.
type WebhookTx interface {
	CreateWebhook(w Webhook) error
	GetWebhook(orgID, id string) (Webhook, error)
	UpdateWebhook(w Webhook) error
	DeleteWebhook(orgID, id string) error
	ListWebhooks(orgID string, p Page) ([]Webhook, int, error)
}

// Resolver looks up a host's addresses; tests inject one to play DNS tricks.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// WebhookPolicy is the delivery configuration the rules depend on.
type WebhookPolicy struct {
	RetrySchedule       []time.Duration
	DisableAfter        int
	Timeout             time.Duration
	Retention           time.Duration
	AllowPrivateTargets bool
}

// MaxAttempts is one first attempt plus one per retry delay.
func (p WebhookPolicy) MaxAttempts() int { return len(p.RetrySchedule) + 1 }

// Lease is how long a claimed delivery stays with its worker before another may take it:
// past it, a crashed process's claims are due again.
func (p WebhookPolicy) Lease() time.Duration { return 2*p.Timeout + 5*time.Second }

// WebhookInput creates an endpoint.
type WebhookInput struct {
	Name   string   `json:"name"`
	URL    string   `json:"url"`
	Events []string `json:"events"`
}

// WebhookPatch changes an endpoint; enabled=true re-enables a disabled one.
type WebhookPatch struct {
	Name    *string  `json:"name"`
	URL     *string  `json:"url"`
	Events  []string `json:"events"`
	Enabled *bool    `json:"enabled"`
}

func validateEvents(p Problems, events []string) []string {
	if len(events) == 0 {
		p.Add("events", "must name at least one event type")
	}
	seen := map[string]bool{}
	out := []string{}
	for _, e := range events {
		if !subscribable(e) {
			p.Add("events", "unknown event type "+e+"; see GET /orgs/{org}/webhooks/events (ping cannot be subscribed to)")
			continue
		}
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}

// CheckTargetURL applies the webhook URL rules: HTTPS, no credentials, and a host that
// neither is nor resolves to a forbidden address. It answers why not, or "".
func (s *Service) CheckTargetURL(ctx context.Context, raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		return "must be an absolute https URL"
	case u.Scheme != "https":
		return "must use https"
	case u.User != nil:
		return "must not embed credentials"
	case len(raw) > 2048:
		return "must be at most 2048 characters"
	}
	if s.d.Webhooks.AllowPrivateTargets {
		return ""
	}
	return s.checkHost(ctx, u.Hostname())
}

func (s *Service) checkHost(ctx context.Context, host string) string {
	if netguard.IsLocalhostName(host) {
		return "must not point to localhost"
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if class := netguard.ForbiddenAddr(a); class != "" {
			return "must not point to " + article(class) + " address"
		}
		return ""
	}
	if a, ok, canonical := netguard.ParseLooseIPv4(host); ok {
		if class := netguard.ForbiddenAddr(a); class != "" {
			return "must not point to " + article(class) + " address"
		}
		if !canonical {
			return "write an IPv4 address in dotted-decimal form"
		}
	}
	return s.checkResolved(ctx, host)
}

func (s *Service) checkResolved(ctx context.Context, host string) string {
	var r Resolver = net.DefaultResolver
	if s.d.Resolver != nil {
		r = s.d.Resolver
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return "host " + host + " does not resolve"
	}
	for _, a := range addrs {
		if class := netguard.ForbiddenAddr(a); class != "" {
			return "host resolves to " + article(class) + " address (" + a.String() + ")"
		}
	}
	return ""
}

// CreateWebhook adds an endpoint and answers it with its full secret, the only time but
// rotation that the secret is shown.
func (s *Service) CreateWebhook(ctx context.Context, orgID string, in WebhookInput) (Webhook, error) {
	p := Problems{}
	validateName(p, "name", in.Name, 255)
	if why := s.CheckTargetURL(ctx, in.URL); why != "" {
		p.Add("url", why)
	}
	events := validateEvents(p, in.Events)
	if err := p.Err(); err != nil {
		return Webhook{}, err
	}
	now := s.now()
	w := Webhook{ID: NewID("wh"), OrgID: orgID, Name: strings.TrimSpace(in.Name), URL: in.URL, Events: events,
		Enabled: true, Secret: newSecret(), CreatedAt: now, UpdatedAt: now}
	err := s.d.Store.Write(ctx, func(tx Tx) error { return tx.CreateWebhook(w) })
	return w, err
}

// GetWebhook reads an endpoint, secret masked.
func (s *Service) GetWebhook(ctx context.Context, orgID, id string) (w Webhook, err error) {
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		w, err = tx.GetWebhook(orgID, id)
		return err
	})
	return w.Masked(), err
}

// ListWebhooks lists endpoints, secrets masked.
func (s *Service) ListWebhooks(ctx context.Context, orgID string, pg Page) (l List[Webhook], err error) {
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		l.Items, l.Total, err = tx.ListWebhooks(orgID, pg)
		return err
	})
	for i := range l.Items {
		l.Items[i] = l.Items[i].Masked()
	}
	return l, err
}

// UpdateWebhook applies a PATCH. Re-enabling clears the failure streak and the reason, and
// the endpoint's waiting deliveries go out on the next tick.
func (s *Service) UpdateWebhook(ctx context.Context, orgID, id string, in WebhookPatch) (w Webhook, err error) {
	p := Problems{}
	if in.Name != nil {
		validateName(p, "name", *in.Name, 255)
	}
	if in.URL != nil {
		if why := s.CheckTargetURL(ctx, *in.URL); why != "" {
			p.Add("url", why)
		}
	}
	var events []string
	if in.Events != nil {
		events = validateEvents(p, in.Events)
	}
	if err := p.Err(); err != nil {
		return Webhook{}, err
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if w, err = tx.GetWebhook(orgID, id); err != nil {
			return err
		}
		applyWebhookPatch(&w, in, events)
		w.UpdatedAt = s.now()
		return tx.UpdateWebhook(w)
	})
	return w.Masked(), err
}

func applyWebhookPatch(w *Webhook, in WebhookPatch, events []string) {
	if in.Name != nil {
		w.Name = strings.TrimSpace(*in.Name)
	}
	if in.URL != nil {
		w.URL = *in.URL
	}
	if events != nil {
		w.Events = events
	}
	if in.Enabled != nil {
		if *in.Enabled && !w.Enabled {
			w.ConsecutiveFailures, w.DisabledReason = 0, nil
		}
		w.Enabled = *in.Enabled
	}
}

// DeleteWebhook removes an endpoint with its deliveries.
func (s *Service) DeleteWebhook(ctx context.Context, orgID, id string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error { return tx.DeleteWebhook(orgID, id) })
}

// RotateWebhookSecret replaces the secret; the old one signs nothing from the commit on.
func (s *Service) RotateWebhookSecret(ctx context.Context, orgID, id string) (w Webhook, err error) {
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if w, err = tx.GetWebhook(orgID, id); err != nil {
			return err
		}
		w.Secret, w.UpdatedAt = newSecret(), s.now()
		return tx.UpdateWebhook(w)
	})
	return w, err
}

// article puts "a" or "an" before a word.
func article(w string) string {
	if w != "" && strings.ContainsRune("aeiouAEIOU", rune(w[0])) {
		return "an " + w
	}
	return "a " + w
}

// WebhookSecretCurrent tells whether secret is still the signing secret of the endpoint
// (compared in constant time); a deleted endpoint has none.
func (s *Service) WebhookSecretCurrent(ctx context.Context, orgID, id, secret string) (bool, error) {
	var w Webhook
	err := s.d.Store.Read(ctx, func(tx Tx) (err error) {
		w, err = tx.GetWebhook(orgID, id)
		return err
	})
	if IsNotFound(err) {
		return false, nil
	}
	return err == nil && subtle.ConstantTimeCompare([]byte(w.Secret), []byte(secret)) == 1, err
}
