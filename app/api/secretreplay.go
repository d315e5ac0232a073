package api

import (
	"context"
	"encoding/json"
	"errors"

	"wsapi/app"
)

// secretCheck tells whether the secret in a stored answer of org is still current.
type secretCheck func(ctx context.Context, org string, answer []byte) (bool, error)

// keyTokenCurrent: the answer's token still authenticates, as the answer's key. A rotated or
// deleted key's token does not.
func (s *Server) keyTokenCurrent(ctx context.Context, _ string, answer []byte) (bool, error) {
	var nk struct {
		ID    string `json:"id"`
		Token string `json:"token"`
	}
	if json.Unmarshal(answer, &nk) != nil || nk.Token == "" {
		return false, nil
	}
	p, err := s.svc.Authenticate(ctx, nk.Token)
	if errors.Is(err, app.ErrUnauthenticated) {
		return false, nil
	}
	return err == nil && p.Key.ID == nk.ID, err
}

// webhookSecretCurrent: the answer's signing secret is still its endpoint's.
func (s *Server) webhookSecretCurrent(ctx context.Context, org string, answer []byte) (bool, error) {
	var w struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	if json.Unmarshal(answer, &w) != nil || w.Secret == "" {
		return false, nil
	}
	return s.svc.WebhookSecretCurrent(ctx, org, w.ID, w.Secret)
}

// errSecretGone refuses the replay of an answer whose secret has been rotated or deleted
// since: a secret is shown once, and never again once it is no longer the object's.
var errSecretGone = &app.Error{Code: app.CodeConflict,
	Message: "the answer to this Idempotency-Key held a secret that has since been rotated or deleted; it is not shown again",
	Fields:  map[string]string{idempotencyHeader: "answered a secret that is no longer current; list the objects to find the one it made"}}
