package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
)

// Deployment is the spec's assistant_integration: one assistant deployed on one channel
// (DESIGN.md, "Channels"). Config is per type and never secret; Secrets are sealed at rest and
// answered only as their names (SecretKeys). SecretKey is the widget's identity key, answered
// once by create and rotate; Snippet is the script tag a widget's page embeds.
type Deployment struct {
	ID            string            `json:"id"`
	AssistantID   string            `json:"assistant_id"`
	IntegrationID string            `json:"integration_id"`
	Name          string            `json:"name"`
	Enabled       bool              `json:"enabled"`
	Config        map[string]any    `json:"config"`
	SecretKeys    []string          `json:"secret_keys"`
	Status        string            `json:"status"`
	Error         *string           `json:"error"`
	CreatedAt     Time              `json:"created_at"`
	UpdatedAt     Time              `json:"updated_at"`
	SecretKey     string            `json:"secret_key,omitempty"`
	Snippet       string            `json:"snippet,omitempty"`
	OrgID         string            `json:"-"`
	Secrets       map[string]string `json:"-"`
}

// Deployment statuses: ACTIVE, or FAILED with an error from a set-up step.
const (
	DeploymentActive = "ACTIVE"
	DeploymentFailed = "FAILED"
)

// DeploymentTypes are the integrations an assistant can be deployed on.
var DeploymentTypes = []string{IntegrationInternal, IntegrationEmail, "telegram", "whatsapp", IntegrationCustom}

// widgetSecretKey names the widget's identity key among its secrets.
const widgetSecretKey = "secret_key"

// DeploymentTx is the assistant integrations part of a transaction.
type DeploymentTx interface {
	CreateDeployment(d Deployment) error
	// GetDeployment reads one with its secrets opened; assistantID "" matches any assistant.
	GetDeployment(orgID, assistantID, id string) (Deployment, error)
	// FindDeployment reads one by id alone, for the public routes (with its organization).
	FindDeployment(id string) (Deployment, error)
	UpdateDeployment(d Deployment) error
	DeleteDeployment(orgID, assistantID, id string) error
	ListDeployments(orgID, assistantID string, p Page) ([]Deployment, int, error)
}

// DeploymentInput creates an assistant integration.
type DeploymentInput struct {
	IntegrationID string            `json:"integration_id"`
	Name          string            `json:"name"`
	Enabled       *bool             `json:"enabled"`
	Config        map[string]any    `json:"config"`
	Secrets       map[string]string `json:"secrets"`
}

// DeploymentPatch changes one: given secrets replace those of the same name (an empty value
// removes one), config replaces the whole config.
type DeploymentPatch struct {
	Name    *string           `json:"name"`
	Enabled *bool             `json:"enabled"`
	Config  map[string]any    `json:"config"`
	Secrets map[string]string `json:"secrets"`
}

// Connector is the part of a channel's connector the domain calls when an integration is
// saved: it checks the set-up (a bot token's getMe, an IMAP login) and answers a failure as
// the integration's error. cli wires one per integration type (app/channel). Verify may put
// into d.Secrets the secrets its type makes (deploymentShapes' made: Telegram's webhook
// secret_token, made anew when absent); they are sealed with the others.
type Connector interface {
	Verify(ctx context.Context, d Deployment) error
}

// Remover is a Connector that undoes its set-up when the integration is deleted (Telegram's
// deleteWebhook). It runs after the delete committed; a failure is logged only.
type Remover interface {
	Remove(ctx context.Context, d Deployment) error
}

// CreateDeployment deploys an assistant on a channel. The widget gets its secret_key
// (answered this once); WhatsApp its verify_token. The channel's connector checks the set-up:
// a type this server has no connector for is stored FAILED, saying so.
func (s *Service) CreateDeployment(ctx context.Context, orgID, assistantID string, in DeploymentInput) (Deployment, error) {
	p := Problems{}
	if !slices.Contains(DeploymentTypes, in.IntegrationID) {
		p.Add("integration_id", "must be one of "+strings.Join(DeploymentTypes, ", "))
	}
	validateName(p, "name", in.Name, 255)
	if in.Config == nil {
		in.Config = map[string]any{}
	}
	if in.Secrets == nil {
		in.Secrets = map[string]string{}
	}
	if in.IntegrationID == "whatsapp" {
		in.Config["verify_token"] = RandomBase62(32)
	}
	if p.Err() == nil {
		validateDeployment(p, in.IntegrationID, in.Config, in.Secrets)
	}
	if err := p.Err(); err != nil {
		return Deployment{}, err
	}
	now := s.now()
	d := Deployment{ID: NewID("asi"), OrgID: orgID, AssistantID: assistantID, IntegrationID: in.IntegrationID,
		Name: strings.TrimSpace(in.Name), Enabled: in.Enabled == nil || *in.Enabled, Config: in.Config,
		Secrets: in.Secrets, Status: DeploymentActive, CreatedAt: now, UpdatedAt: now}
	if d.IntegrationID == IntegrationInternal {
		d.Secrets[widgetSecretKey] = newWidgetKey()
	}
	s.verifyDeployment(ctx, &d)
	d.SecretKeys = secretKeys(d.Secrets)
	err := s.d.Store.Write(ctx, func(tx Tx) error {
		if err := liveAssistant(tx, orgID, assistantID); err != nil {
			return err
		}
		if err := checkDeploymentRefs(tx, d); err != nil {
			return err
		}
		return tx.CreateDeployment(d)
	})
	d.SecretKey = d.Secrets[widgetSecretKey]
	return s.shown(d), err
}

// newWidgetKey makes a widget's identity key: "wsk_" and 256 random bits.
func newWidgetKey() string { return "wsk_" + RandomBase62(43) }

// verifyDeployment runs the set-up check of the integration's connector, if it needs one.
func (s *Service) verifyDeployment(ctx context.Context, d *Deployment) {
	if d.IntegrationID == IntegrationInternal || d.IntegrationID == IntegrationCustom {
		d.Status, d.Error = DeploymentActive, nil
		return
	}
	c := s.d.Connectors[d.IntegrationID]
	if c == nil {
		why := d.IntegrationID + " is not available on this server yet: its connector is not part of this build"
		d.Status, d.Error = DeploymentFailed, &why
		return
	}
	if err := c.Verify(ctx, *d); err != nil {
		why := err.Error()
		d.Status, d.Error = DeploymentFailed, &why
		return
	}
	d.Status, d.Error = DeploymentActive, nil
}

// checkDeploymentRefs checks what the config names in the organization: an email
// integration's identity.
func checkDeploymentRefs(tx Tx, d Deployment) error {
	if d.IntegrationID != IntegrationEmail {
		return nil
	}
	id, _ := d.Config["identity_id"].(string)
	_, err := tx.GetIdentity(d.OrgID, id)
	if IsNotFound(err) {
		return Invalid("config.identity_id", "is not an email identity of this organization")
	}
	return err
}

// shown is d as answered: the widget's snippet, never a secret but the one just made.
func (s *Service) shown(d Deployment) Deployment {
	d.Secrets = nil
	if d.IntegrationID == IntegrationInternal && s.d.Links != nil {
		d.Snippet = WidgetSnippet(s.d.Links.WidgetScript(), d.ID)
	}
	return d
}

// WidgetSnippet is the script tag a site embeds to show the widget of integration id.
func WidgetSnippet(script, id string) string {
	return `<script src="` + script + `" data-integration="` + id + `" async></script>`
}

// GetDeployment reads an assistant integration (secret names only).
func (s *Service) GetDeployment(ctx context.Context, orgID, assistantID, id string) (Deployment, error) {
	d, err := readOne(ctx, s.d.Store, func(tx Tx) (Deployment, error) { return tx.GetDeployment(orgID, assistantID, id) })
	return s.shown(d), err
}

// ListDeployments lists an assistant's integrations, oldest first.
func (s *Service) ListDeployments(ctx context.Context, orgID, assistantID string, pg Page) (List[Deployment], error) {
	l, err := readPage(ctx, s.d.Store, func(tx Tx) ([]Deployment, int, error) {
		if err := liveAssistant(tx, orgID, assistantID); err != nil {
			return nil, 0, err
		}
		return tx.ListDeployments(orgID, assistantID, pg)
	})
	for i := range l.Items {
		l.Items[i] = s.shown(l.Items[i])
	}
	return l, err
}

// UpdateDeployment changes name, enabled, config or secrets; a config or secret change runs
// the set-up check again, outside the write (a provider's answer may take seconds): the
// write then refuses a change made meanwhile (409). Turning enabled off leaves the chats in
// the inbox and stops the assistant answering them (mayRun).
func (s *Service) UpdateDeployment(ctx context.Context, orgID, assistantID, id string, in DeploymentPatch) (d Deployment, err error) {
	p := Problems{}
	name, named := validateNameField(p, "name", in.Name, false, 255)
	if err := p.Err(); err != nil {
		return d, err
	}
	if d, err = readOne(ctx, s.d.Store, func(tx Tx) (Deployment, error) { return tx.GetDeployment(orgID, assistantID, id) }); err != nil {
		return d, err
	}
	read := d.UpdatedAt
	if err := patchDeployment(&d, in); err != nil {
		return d, err
	}
	if named {
		d.Name = strings.TrimSpace(name)
	}
	if in.Config != nil || in.Secrets != nil {
		s.verifyDeployment(ctx, &d)
	}
	d.SecretKeys, d.UpdatedAt = secretKeys(d.Secrets), s.now()
	return s.shown(d), s.saveDeployment(ctx, d, read)
}

// saveDeployment writes d unless it changed since it was read (at read).
func (s *Service) saveDeployment(ctx context.Context, d Deployment, read Time) error {
	return s.d.Store.Write(ctx, func(tx Tx) error {
		now, err := tx.GetDeployment(d.OrgID, d.AssistantID, d.ID)
		if err != nil {
			return err
		}
		if !now.UpdatedAt.Equal(read.Time) {
			return &Error{Code: CodeConflict, Message: "the integration changed meanwhile; read it again and retry"}
		}
		if err := checkDeploymentRefs(tx, d); err != nil {
			return err
		}
		return tx.UpdateDeployment(d)
	})
}

// patchDeployment applies config, secrets and enabled, validating the result as a whole.
func patchDeployment(d *Deployment, in DeploymentPatch) error {
	if in.Config != nil {
		if token, ok := d.Config["verify_token"]; ok { // generated, kept across config changes
			in.Config["verify_token"] = token
		}
		d.Config = in.Config
	}
	made := deploymentShapes[d.IntegrationID].made
	for k, v := range in.Secrets {
		if slices.Contains(made, k) {
			return Invalid("secrets", k+" is made by the server: rotate it with POST .../rotate")
		}
		if v == "" {
			delete(d.Secrets, k)
		} else {
			d.Secrets[k] = v
		}
	}
	if in.Enabled != nil {
		d.Enabled = *in.Enabled
	}
	p := Problems{}
	secrets := maps.Clone(d.Secrets)
	for _, k := range made {
		delete(secrets, k)
	}
	validateDeployment(p, d.IntegrationID, d.Config, secrets)
	return p.Err()
}

// RotateDeploymentKey makes the secrets the server makes anew: a widget's secret_key,
// answered this once (identities signed with the old one are refused from now on); a
// Telegram bot's webhook secret_token, set up again with Telegram (the old one is refused).
func (s *Service) RotateDeploymentKey(ctx context.Context, orgID, assistantID, id string) (d Deployment, err error) {
	if d, err = readOne(ctx, s.d.Store, func(tx Tx) (Deployment, error) { return tx.GetDeployment(orgID, assistantID, id) }); err != nil {
		return d, err
	}
	read := d.UpdatedAt
	made := deploymentShapes[d.IntegrationID].made
	if len(made) == 0 {
		return d, Invalid("integration_id", "only the web widget (internal) and telegram have a server-made secret to rotate")
	}
	for _, k := range made {
		delete(d.Secrets, k)
	}
	if d.IntegrationID == IntegrationInternal {
		d.Secrets[widgetSecretKey] = newWidgetKey()
	} else {
		s.verifyDeployment(ctx, &d)
	}
	d.SecretKeys, d.UpdatedAt = secretKeys(d.Secrets), s.now()
	err = s.saveDeployment(ctx, d, read)
	key := d.Secrets[widgetSecretKey]
	d = s.shown(d)
	d.SecretKey = key
	return d, err
}

// DeleteDeployment removes an assistant integration: its inbound is refused from then on
// (the widget answers 404, Telegram's webhook is deleted); its chats stay in the inbox.
func (s *Service) DeleteDeployment(ctx context.Context, orgID, assistantID, id string) error {
	var d Deployment
	err := s.d.Store.Write(ctx, func(tx Tx) (err error) {
		if d, err = tx.GetDeployment(orgID, assistantID, id); err != nil {
			return err
		}
		return tx.DeleteDeployment(orgID, assistantID, id)
	})
	if r, ok := s.d.Connectors[d.IntegrationID].(Remover); ok && err == nil {
		if rerr := r.Remove(ctx, d); rerr != nil {
			s.d.Log.Warn("channels: undoing an integration's set-up failed", "org", orgID, "integration", id, "err", rerr)
		}
	}
	return err
}

// WidgetKeyCurrent tells whether key is still the widget's secret_key (constant time).
func (s *Service) WidgetKeyCurrent(ctx context.Context, orgID, id, key string) (bool, error) {
	d, err := readOne(ctx, s.d.Store, func(tx Tx) (Deployment, error) { return tx.GetDeployment(orgID, "", id) })
	if IsNotFound(err) {
		return false, nil
	}
	return err == nil && hmac.Equal([]byte(d.Secrets[widgetSecretKey]), []byte(key)), err
}

// VerifyIdentity tells whether userHash is the hex HMAC-SHA256 of userID under the widget's
// secret_key, compared in constant time.
func (d Deployment) VerifyIdentity(userID, userHash string) bool {
	key := d.Secrets[widgetSecretKey]
	if key == "" || userID == "" {
		return false
	}
	got, err := hex.DecodeString(userHash)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte(userID))
	return hmac.Equal(got, mac.Sum(nil))
}

// SetDeploymentStatus records what a channel's background work found of an integration (an
// IMAP mailbox that cannot be reached: FAILED with why; reached again: ACTIVE). It writes only
// a change, and never over an integration changed since seen was read: a PATCH that fixed the
// password wins over the failure of the old one.
func (s *Service) SetDeploymentStatus(ctx context.Context, seen Deployment, failure error) error {
	status, why := DeploymentActive, (*string)(nil)
	if failure != nil {
		status, why = DeploymentFailed, new(failure.Error())
	}
	return s.d.Store.Write(ctx, func(tx Tx) error {
		d, err := tx.GetDeployment(seen.OrgID, "", seen.ID)
		if IsNotFound(err) || err == nil && (d.UpdatedAt != seen.UpdatedAt || d.Status == status && equalPtr(d.Error, why)) {
			return nil
		}
		if err != nil {
			return err
		}
		d.Status, d.Error, d.UpdatedAt = status, why, s.now()
		return tx.UpdateDeployment(d)
	})
}

func equalPtr(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
