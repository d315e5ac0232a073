package app

import "context"

// DefaultOrgName names the organization made on an empty database.
const DefaultOrgName = "Default"

// DefaultOwnerEmail is the owner's address until someone sets a real one: under RFC 2606's
// reserved .invalid, so it can never reach anyone, and an address by EmailPattern, so it
// breaks no member list (migration 00031 renames the "owner@localhost" of older installs).
const DefaultOwnerEmail = "owner@example.invalid"

// Bootstrap makes, on an empty database only, the Default organization, its owner (ADMIN) and
// one admin key named name. It answers the key, or ok=false when organizations already exist.
func (s *Service) Bootstrap(ctx context.Context, name string) (nk NewKey, ok bool, err error) {
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		n, err := tx.CountOrgs()
		if err != nil || n > 0 {
			return err
		}
		now := s.now()
		org := newOrg(DefaultOrgName, nil, now)
		if err := tx.CreateOrg(org); err != nil {
			return err
		}
		owner, err := ensureOwner(tx, org.ID, now)
		if err != nil {
			return err
		}
		nk, err = insertKey(tx, org.ID, owner.ID, name, now)
		ok = err == nil
		return err
	})
	return nk, ok, err
}

// ensureOwner returns the organization's first ADMIN, making an "Owner" if it has none.
func ensureOwner(tx Tx, orgID string, now Time) (Member, error) {
	m, err := tx.FirstAdmin(orgID)
	if !IsNotFound(err) {
		return m, err
	}
	m = Member{ID: NewID("mem"), OrgID: orgID, Name: "Owner", Email: DefaultOwnerEmail,
		Role: RoleAdmin, CreatedAt: now, UpdatedAt: now}
	return m, tx.CreateMember(m)
}

// CreateKeyAsOperator is `app keys create`: a key for memberID, or for the organization's
// owner (made if missing) when memberID is empty. An empty orgID bootstraps the Default
// organization on an empty database, and otherwise means the oldest top-level organization.
func (s *Service) CreateKeyAsOperator(ctx context.Context, orgID, memberID, name string) (NewKey, error) {
	p := Problems{}
	validateName(p, "name", name, 255)
	if err := p.Err(); err != nil {
		return NewKey{}, err
	}
	var nk NewKey
	err := s.d.Store.Write(ctx, func(tx Tx) error {
		now := s.now()
		org, err := operatorOrg(tx, orgID, now)
		if err != nil {
			return err
		}
		var m Member
		if memberID == "" {
			m, err = ensureOwner(tx, org.ID, now)
		} else {
			m, err = tx.GetMember(org.ID, memberID)
		}
		if err != nil {
			return err
		}
		nk, err = insertKey(tx, org.ID, m.ID, name, now)
		return err
	})
	return nk, err
}

func operatorOrg(tx Tx, orgID string, now Time) (Org, error) {
	if orgID != "" {
		return tx.GetOrg(orgID)
	}
	orgs, err := tx.ListOrgs()
	if err != nil {
		return Org{}, err
	}
	for _, o := range orgs {
		if o.ParentOrgID == nil {
			return o, nil
		}
	}
	org := newOrg(DefaultOrgName, nil, now)
	return org, tx.CreateOrg(org)
}
