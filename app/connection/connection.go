package connection

import (
	"context"
	"maps"
	"slices"
	"strings"

	"wsapi/app"
)

// Service holds the rules of connections. Its collaborators are given once, to New.
type Service struct {
	svc       *app.Service
	tokens    app.TokenSigner
	providers map[string]OAuthProvider
	exchanger OAuthExchanger
}

// New makes the connections' rules over svc's store and clock. tokens signs OAuth states;
// providers are the configured OAuth providers by connection type (oauth.providers), which
// exchanger talks to (app/oauth). A type without a provider cannot be authorized.
func New(svc *app.Service, tokens app.TokenSigner, providers map[string]OAuthProvider, exchanger OAuthExchanger) *Service {
	return &Service{svc: svc, tokens: tokens, providers: providers, exchanger: exchanger}
}

func (s *Service) now() app.Time { return app.At(s.svc.Clock().Now()) }

// Input creates a connection: public settings in config, credentials in secrets.
type Input struct {
	Type    string            `json:"type"`
	Name    string            `json:"name"`
	Config  map[string]any    `json:"config"`
	Secrets map[string]string `json:"secrets"`
}

// typeChoice is the reason given for a type that is not one of app.ConnectionTypes.
func typeChoice() string { return "must be one of " + strings.Join(app.ConnectionTypes, ", ") }

func validate(in Input) error {
	p := app.Problems{}
	if !slices.Contains(app.ConnectionTypes, in.Type) {
		p.Add("type", typeChoice())
	}
	app.ValidateName(p, "name", in.Name, 255)
	credentialKeys(p, "config", in.Config)
	if len(in.Secrets) > 50 {
		p.Add("secrets", "must hold at most 50 entries")
	}
	for k, v := range in.Secrets {
		if k == "" || len(v) > 16<<10 {
			p.Add("secrets", "keys must be non-empty and values at most 16 KiB")
		}
	}
	return p.Err()
}

// Create stores a connection with its secrets sealed.
func (s *Service) Create(ctx context.Context, orgID string, in Input) (app.Connection, error) {
	if err := validate(in); err != nil {
		return app.Connection{}, err
	}
	now := s.now()
	c := app.Connection{ID: app.NewID("conn"), OrgID: orgID, Type: in.Type, Name: strings.TrimSpace(in.Name), Config: in.Config,
		Secrets: in.Secrets, CreatedAt: now, UpdatedAt: now}
	if c.Config == nil {
		c.Config = map[string]any{}
	}
	if c.Secrets == nil {
		c.Secrets = map[string]string{}
	}
	c.SecretKeys = append([]string{}, slices.Sorted(maps.Keys(c.Secrets))...)
	err := s.svc.Store().Write(ctx, func(tx app.Tx) error { return tx.CreateConnection(c) })
	return c, err
}

// Get reads a connection (its answer names the secrets, never their values).
func (s *Service) Get(ctx context.Context, orgID, id string) (app.Connection, error) {
	return s.svc.GetConnection(ctx, orgID, id)
}

// List lists connections by name, optionally of one type.
func (s *Service) List(ctx context.Context, orgID, typ string, pg app.Page) (l app.List[app.Connection], err error) {
	if typ != "" && !slices.Contains(app.ConnectionTypes, typ) {
		return l, app.Invalid("type", typeChoice())
	}
	err = s.svc.Store().Read(ctx, func(tx app.Tx) error {
		l.Items, l.Total, err = tx.ListConnections(orgID, typ, pg)
		return err
	})
	return l, err
}

// Delete removes a connection.
func (s *Service) Delete(ctx context.Context, orgID, id string) error {
	return s.svc.Store().Write(ctx, func(tx app.Tx) error { return tx.DeleteConnection(orgID, id) })
}
