package app

import (
	"context"
	"sort"
)

// Connection links the organization to a third-party system. Secrets are sealed at rest and
// never answered: reads list only their names. The rules are app/connection's.
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

// secretKeys are the names of a set of sealed secrets, sorted, never nil.
func secretKeys(m map[string]string) []string {
	keys := []string{}
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// GetConnection reads a connection, its secrets unsealed for the service's own use (the run
// worker signs tool callbacks with them); answers show only their names.
func (s *Service) GetConnection(ctx context.Context, orgID, id string) (Connection, error) {
	return readOne(ctx, s.d.Store, func(tx Tx) (Connection, error) { return tx.GetConnection(orgID, id) })
}
