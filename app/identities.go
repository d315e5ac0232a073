package app

import (
	"context"
	"strings"
)

// IdentityDomain is the domain as nested in an identity.
type IdentityDomain struct {
	ID         string      `json:"id"`
	Domain     string      `json:"domain"`
	DKIMStatus string      `json:"dkim_status"`
	DKIMTokens []DNSRecord `json:"dkim_tokens"`
	VerifiedAt Time        `json:"verified_at"`
	CreatedAt  Time        `json:"created_at"`
	UpdatedAt  Time        `json:"updated_at"`
}

// EmailIdentity is a sender address on one of the organization's domains. Its status follows
// the domain's DKIM status.
type EmailIdentity struct {
	ID            string         `json:"id"`
	Email         string         `json:"email"`
	Name          *string        `json:"name"`
	Status        string         `json:"status"`
	Domain        IdentityDomain `json:"domain"`
	IsDefault     bool           `json:"is_default"`
	ClickTracking bool           `json:"click_tracking"`
	OpenTracking  bool           `json:"open_tracking"`
	VerifiedAt    Time           `json:"verified_at"`
	CreatedAt     Time           `json:"created_at"`
	UpdatedAt     Time           `json:"updated_at"`
	OrgID         string         `json:"-"`
	DomainID      string         `json:"-"`
}

// WithDomain fills the nested domain and the status derived from it.
func (e EmailIdentity) WithDomain(d Domain) EmailIdentity {
	e.Domain = IdentityDomain{ID: d.ID, Domain: d.Domain, DKIMStatus: d.DKIMStatus, DKIMTokens: d.DKIMTokens,
		VerifiedAt: d.VerifiedAt, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
	e.Status, e.VerifiedAt = d.DKIMStatus, d.VerifiedAt
	return e
}

// IdentityTx is the identities part of a transaction; reads fill the nested domain.
type IdentityTx interface {
	CreateIdentity(e EmailIdentity) error
	GetIdentity(orgID, id string) (EmailIdentity, error)
	UpdateIdentity(e EmailIdentity) error
	DeleteIdentity(orgID, id string) error
	ListIdentities(orgID string, p Page) ([]EmailIdentity, int, error)
	ClearDefaultIdentity(orgID string) error
}

// IdentityInput creates an identity.
type IdentityInput struct {
	Email         string  `json:"email"`
	Name          *string `json:"name"`
	IsDefault     bool    `json:"is_default"`
	ClickTracking bool    `json:"click_tracking"`
	OpenTracking  bool    `json:"open_tracking"`
}

// IdentityPatch is the spec's Update an email identity.
type IdentityPatch struct {
	Name          Optional[string] `json:"name"`
	IsDefault     *bool            `json:"is_default"`
	ClickTracking *bool            `json:"click_tracking"`
	OpenTracking  *bool            `json:"open_tracking"`
}

// CreateIdentity adds a sender on one of the organization's domains.
func (s *Service) CreateIdentity(ctx context.Context, orgID string, in IdentityInput) (e EmailIdentity, err error) {
	p := Problems{}
	email := strings.ToLower(strings.TrimSpace(in.Email))
	if !validEmail(email) {
		p.Add("email", "must be an email address")
	}
	if in.Name != nil && CharCount(*in.Name) > 255 {
		p.Add("name", "must be at most 255 characters")
	} else if in.Name != nil {
		headerSafeProblem(p, "name", *in.Name)
	}
	if err := p.Err(); err != nil {
		return e, err
	}
	now := s.now()
	e = EmailIdentity{ID: NewID("eid"), OrgID: orgID, Email: email, Name: in.Name, IsDefault: in.IsDefault,
		ClickTracking: in.ClickTracking, OpenTracking: in.OpenTracking, CreatedAt: now, UpdatedAt: now}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		d, err := tx.DomainByName(orgID, email[strings.LastIndex(email, "@")+1:])
		if IsNotFound(err) {
			return Invalid("email", "its domain is not one of this organization's domains; add it first")
		}
		if err != nil {
			return err
		}
		e.DomainID = d.ID
		if e.IsDefault {
			if err := tx.ClearDefaultIdentity(orgID); err != nil {
				return err
			}
		}
		if err := tx.CreateIdentity(e); err != nil {
			return err
		}
		e, err = tx.GetIdentity(orgID, e.ID)
		return err
	})
	return e, err
}

// GetIdentity reads an identity.
func (s *Service) GetIdentity(ctx context.Context, orgID, id string) (EmailIdentity, error) {
	return readOne(ctx, s.d.Store, func(tx Tx) (EmailIdentity, error) { return tx.GetIdentity(orgID, id) })
}

// ListIdentities lists identities, the default first.
func (s *Service) ListIdentities(ctx context.Context, orgID string, pg Page) (List[EmailIdentity], error) {
	return readPage(ctx, s.d.Store, func(tx Tx) ([]EmailIdentity, int, error) { return tx.ListIdentities(orgID, pg) })
}

// DeleteIdentity removes an identity.
func (s *Service) DeleteIdentity(ctx context.Context, orgID, id string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error { return tx.DeleteIdentity(orgID, id) })
}

// UpdateIdentity applies the spec's PATCH; is_default true unsets the previous default in the
// same transaction.
func (s *Service) UpdateIdentity(ctx context.Context, orgID, id string, in IdentityPatch) (e EmailIdentity, err error) {
	if in.Name.Set && !in.Name.Null && CharCount(in.Name.Value) > 255 {
		return e, Invalid("name", "must be at most 255 characters")
	}
	if in.Name.Set && !in.Name.Null && !HeaderSafe(in.Name.Value) {
		return e, Invalid("name", "must not contain control characters (line breaks, tabs)")
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if e, err = tx.GetIdentity(orgID, id); err != nil {
			return err
		}
		if in.Name.Set {
			e.Name = in.Name.Ptr()
		}
		if in.IsDefault != nil {
			if *in.IsDefault && !e.IsDefault {
				if err := tx.ClearDefaultIdentity(orgID); err != nil {
					return err
				}
			}
			e.IsDefault = *in.IsDefault
		}
		if in.ClickTracking != nil {
			e.ClickTracking = *in.ClickTracking
		}
		if in.OpenTracking != nil {
			e.OpenTracking = *in.OpenTracking
		}
		e.UpdatedAt = s.now()
		if err := tx.UpdateIdentity(e); err != nil {
			return err
		}
		e, err = tx.GetIdentity(orgID, id)
		return err
	})
	return e, err
}

// VerifyIdentity verifies the identity's domain and answers the identity.
func (s *Service) VerifyIdentity(ctx context.Context, orgID, id string) (EmailIdentity, error) {
	e, err := s.GetIdentity(ctx, orgID, id)
	if err != nil {
		return e, err
	}
	if _, err := s.VerifyDomain(ctx, orgID, e.DomainID); err != nil {
		return e, err
	}
	return s.GetIdentity(ctx, orgID, id)
}
