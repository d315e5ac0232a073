package app

import (
	"context"
	"slices"
	"sort"
	"strings"
)

// Connection links the organization to a third-party system. Secrets are sealed at rest and
// never answered: reads list only their names.
type Connection struct {
	ID         string            `json:"id"`
	Type       string            `json:"type"`
	Name       string            `json:"name"`
	Config     map[string]any    `json:"config"`
	SecretKeys []string          `json:"secret_keys"`
	CreatedAt  Time              `json:"created_at"`
	UpdatedAt  Time              `json:"updated_at"`
	OrgID      string            `json:"-"`
	Secrets    map[string]string `json:"-"`
}

// ConnectionTx is the connections part of a transaction.
type ConnectionTx interface {
	CreateConnection(c Connection) error
	GetConnection(orgID, id string) (Connection, error)
	DeleteConnection(orgID, id string) error
	ListConnections(orgID, typ string, p Page) ([]Connection, int, error)
	// SpendOAuthState records an OAuth state as used and answers false when it already was;
	// states expired before now are forgotten.
	SpendOAuthState(state string, expiresAt, now Time) (bool, error)
}

// ConnectionInput creates a connection: public settings in config, credentials in secrets.
type ConnectionInput struct {
	Type    string            `json:"type"`
	Name    string            `json:"name"`
	Config  map[string]any    `json:"config"`
	Secrets map[string]string `json:"secrets"`
}

func validateConnection(in ConnectionInput) error {
	p := Problems{}
	if !slices.Contains(ConnectionTypes, in.Type) {
		p.Add("type", "must be one of "+strings.Join(ConnectionTypes, ", "))
	}
	validateName(p, "name", in.Name, 255)
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

// CreateConnection stores a connection with its secrets sealed.
func (s *Service) CreateConnection(ctx context.Context, orgID string, in ConnectionInput) (Connection, error) {
	if err := validateConnection(in); err != nil {
		return Connection{}, err
	}
	now := s.now()
	c := Connection{ID: NewID("conn"), OrgID: orgID, Type: in.Type, Name: strings.TrimSpace(in.Name), Config: in.Config,
		Secrets: in.Secrets, CreatedAt: now, UpdatedAt: now}
	if c.Config == nil {
		c.Config = map[string]any{}
	}
	if c.Secrets == nil {
		c.Secrets = map[string]string{}
	}
	c.SecretKeys = secretKeys(c.Secrets)
	err := s.d.Store.Write(ctx, func(tx Tx) error { return tx.CreateConnection(c) })
	return c, err
}

func secretKeys(m map[string]string) []string {
	keys := []string{}
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// GetConnection reads a connection (secret names only).
func (s *Service) GetConnection(ctx context.Context, orgID, id string) (Connection, error) {
	return readOne(ctx, s.d.Store, func(tx Tx) (Connection, error) { return tx.GetConnection(orgID, id) })
}

// ListConnections lists connections by name, optionally of one type.
func (s *Service) ListConnections(ctx context.Context, orgID, typ string, pg Page) (l List[Connection], err error) {
	if typ != "" && !slices.Contains(ConnectionTypes, typ) {
		return l, Invalid("type", "must be one of "+strings.Join(ConnectionTypes, ", "))
	}
	return readPage(ctx, s.d.Store, func(tx Tx) ([]Connection, int, error) { return tx.ListConnections(orgID, typ, pg) })
}

// DeleteConnection removes a connection.
func (s *Service) DeleteConnection(ctx context.Context, orgID, id string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error { return tx.DeleteConnection(orgID, id) })
}
