package app

import (
	"context"
	"strings"
)

// Suppression is an address the organization never sends to again.
type Suppression struct {
	ID        string `json:"id"`
	Email     string `json:"email"`
	Reason    string `json:"reason"`
	CreatedAt Time   `json:"created_at"`
	OrgID     string `json:"-"`
}

// SuppressionTx is the suppression list part of a transaction.
type SuppressionTx interface {
	// AddSuppression adds an address; one already listed keeps its first entry, which it
	// answers.
	AddSuppression(s Suppression) (Suppression, error)
	IsSuppressed(orgID, email string) (bool, error)
	ListSuppressions(orgID, search string, p Page) ([]Suppression, int, error)
	DeleteSuppression(orgID, id string) error
}

func newSuppression(orgID, email, reason string, now Time) Suppression {
	return Suppression{ID: NewID("sup"), OrgID: orgID, Email: strings.ToLower(strings.TrimSpace(email)), Reason: reason, CreatedAt: now}
}

// SuppressionInput adds an address by hand.
type SuppressionInput struct {
	Email  string `json:"email"`
	Reason string `json:"reason"`
}

// AddSuppression lists an address; listing it twice is harmless.
func (s *Service) AddSuppression(ctx context.Context, orgID string, in SuppressionInput) (Suppression, error) {
	p := Problems{}
	if !validEmail(strings.TrimSpace(in.Email)) {
		p.Add("email", "must be an email address")
	}
	if in.Reason == "" {
		in.Reason = ReasonManual
	}
	if CharCount(in.Reason) > 255 {
		p.Add("reason", "must be at most 255 characters")
	}
	if err := p.Err(); err != nil {
		return Suppression{}, err
	}
	sup := newSuppression(orgID, in.Email, in.Reason, s.now())
	err := s.d.Store.Write(ctx, func(tx Tx) (err error) {
		sup, err = tx.AddSuppression(sup)
		return err
	})
	return sup, err
}

// ListSuppressions lists the suppression list, newest first; search matches the address.
func (s *Service) ListSuppressions(ctx context.Context, orgID, search string, pg Page) (l List[Suppression], err error) {
	p := Problems{}
	if validateSearch(p, search, false); len(p) > 0 {
		return l, p.Err()
	}
	return readPage(ctx, s.d.Store, func(tx Tx) ([]Suppression, int, error) { return tx.ListSuppressions(orgID, search, pg) })
}

// DeleteSuppression lets an address receive mail again.
func (s *Service) DeleteSuppression(ctx context.Context, orgID, id string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error { return tx.DeleteSuppression(orgID, id) })
}
