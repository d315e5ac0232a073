package app

import (
	"context"
	"net/url"
	"strings"
)

// OrgConfig is the public contact information of an organization.
type OrgConfig struct {
	Email      string `json:"email"`
	Address    string `json:"address"`
	TermsURL   string `json:"terms_url"`
	PrivacyURL string `json:"privacy_url"`
}

// OrgFeatures are switches an operator sets from the CLI.
type OrgFeatures struct {
	Enterprise     bool `json:"enterprise"`
	AllowOverdraft bool `json:"allow_overdraft"`
	Workflows      bool `json:"workflows"`
	Broadcasts     bool `json:"broadcasts"`
	Whatsapp       bool `json:"whatsapp"`
	Telegram       bool `json:"telegram"`
}

// Org is an organization (workspace), a node of the organizations tree.
type Org struct {
	ID          string      `json:"id"`
	Name        string      `json:"name"`
	LogoURL     string      `json:"logo_url"`
	Plan        string      `json:"plan"`
	Config      OrgConfig   `json:"config"`
	Features    OrgFeatures `json:"features"`
	ParentOrgID *string     `json:"parent_org_id"`
	Balance     float64     `json:"balance"`
	CreatedAt   Time        `json:"created_at"`
	UpdatedAt   Time        `json:"updated_at"`
}

// Plans an organization can be on.
const (
	PlanFree     = "free"
	PlanBusiness = "business"
)

// InitialBalance is the balance of a new organization. Self-hosted teams do not bill, so an
// organization starts in good standing; an operator sets 0 or less to pause its webhooks.
const InitialBalance = 100

// OrgTx is the organizations part of a transaction.
type OrgTx interface {
	CreateOrg(o Org) error
	GetOrg(id string) (Org, error)
	UpdateOrg(o Org) error
	ListOrgs() ([]Org, error)
	ListSubOrgs(parentID string, p Page) ([]Org, int, error)
	// OrgWithin reports whether orgID is ancestorID itself or one of its descendants.
	OrgWithin(orgID, ancestorID string) (bool, error)
	CountOrgs() (int, error)
}

// OrgInput is what POST /sub-orgs and the CLI take.
type OrgInput struct {
	Name string `json:"name"`
}

// OrgPatch is what PATCH /orgs/{org} may change.
type OrgPatch struct {
	Name    *string    `json:"name"`
	LogoURL *string    `json:"logo_url"`
	Config  *OrgConfig `json:"config"`
}

func newOrg(name string, parent *string, now Time) Org {
	return Org{ID: NewID("org"), Name: name, Plan: PlanFree, ParentOrgID: parent,
		Balance: InitialBalance, CreatedAt: now, UpdatedAt: now}
}

// ValidateName adds a problem unless name is a non-blank text of at most max characters; the
// rule packages beside app (app/connection) check names with it.
func ValidateName(p Problems, field, name string, max int) { validateName(p, field, name, max) }

func validateName(p Problems, field, name string, max int) {
	validateText(p, field, name, true, max)
}

// validateNameField checks a name that a create requires and a patch may leave out (nil),
// and answers it ("" when absent) and whether it was checked.
func validateNameField(p Problems, field string, name *string, creating bool, max int) (string, bool) {
	if name == nil && !creating {
		return "", false
	}
	v := ""
	if name != nil {
		v = *name
	}
	validateName(p, field, v, max)
	return v, true
}

func validateURL(p Problems, field, raw string) {
	if raw == "" {
		return
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.Add(field, "must be an http or https URL")
	}
}

// CreateOrg makes a top-level organization (CLI only) or, with a parent, a sub-organization.
func (s *Service) CreateOrg(ctx context.Context, in OrgInput, parentID string) (Org, error) {
	p := Problems{}
	validateName(p, "name", in.Name, 255)
	if err := p.Err(); err != nil {
		return Org{}, err
	}
	var parent *string
	if parentID != "" {
		parent = &parentID
	}
	org := newOrg(strings.TrimSpace(in.Name), parent, s.now())
	err := s.d.Store.Write(ctx, func(tx Tx) error {
		if parent != nil {
			if _, err := tx.GetOrg(parentID); err != nil {
				return err
			}
		}
		return tx.CreateOrg(org)
	})
	return org, err
}

// GetOrg reads one organization.
func (s *Service) GetOrg(ctx context.Context, id string) (Org, error) {
	return readOne(ctx, s.d.Store, func(tx Tx) (Org, error) { return tx.GetOrg(id) })
}

// UpdateOrg applies a PATCH /orgs/{org}.
func (s *Service) UpdateOrg(ctx context.Context, id string, in OrgPatch) (org Org, err error) {
	p := Problems{}
	if in.Name != nil {
		validateName(p, "name", *in.Name, 255)
	}
	if in.LogoURL != nil {
		validateURL(p, "logo_url", *in.LogoURL)
	}
	if in.Config != nil {
		validateURL(p, "config.terms_url", in.Config.TermsURL)
		validateURL(p, "config.privacy_url", in.Config.PrivacyURL)
	}
	if err := p.Err(); err != nil {
		return Org{}, err
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if org, err = tx.GetOrg(id); err != nil {
			return err
		}
		if in.Name != nil {
			org.Name = strings.TrimSpace(*in.Name)
		}
		if in.LogoURL != nil {
			org.LogoURL = *in.LogoURL
		}
		if in.Config != nil {
			org.Config = *in.Config
		}
		org.UpdatedAt = s.now()
		return tx.UpdateOrg(org)
	})
	return org, err
}

// ListSubOrgs lists the direct children of an organization.
func (s *Service) ListSubOrgs(ctx context.Context, parentID string, pg Page) (List[Org], error) {
	return readPage(ctx, s.d.Store, func(tx Tx) ([]Org, int, error) { return tx.ListSubOrgs(parentID, pg) })
}

// ListOrgs lists every organization (CLI).
func (s *Service) ListOrgs(ctx context.Context) ([]Org, error) {
	return readOne(ctx, s.d.Store, func(tx Tx) ([]Org, error) { return tx.ListOrgs() })
}

// SetBalance sets an organization's balance (CLI). Webhook deliveries pause at 0 or less.
func (s *Service) SetBalance(ctx context.Context, id string, balance float64) (org Org, err error) {
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if org, err = tx.GetOrg(id); err != nil {
			return err
		}
		org.Balance = balance
		org.UpdatedAt = s.now()
		return tx.UpdateOrg(org)
	})
	return org, err
}
