package app

import (
	"context"
	"sort"
	"strings"
)

// Role is a custom role: a named set of permissions within one organization.
type Role struct {
	ID          string       `json:"id"`
	OrgID       string       `json:"org_id"`
	Name        string       `json:"name"`
	Permissions []Permission `json:"permissions"`
	CreatedAt   Time         `json:"created_at"`
	UpdatedAt   Time         `json:"updated_at"`
}

// RoleTx is the roles part of a transaction.
type RoleTx interface {
	CreateRole(r Role) error
	GetRole(orgID, id string) (Role, error)
	UpdateRole(r Role) error
	DeleteRole(orgID, id string) error
	ListRoles(orgID string, p Page) ([]Role, int, error)
}

// RoleInput creates or (with nil fields left alone) changes a role.
type RoleInput struct {
	Name        *string      `json:"name"`
	Permissions []Permission `json:"permissions"`
}

func validateRole(in RoleInput, creating bool) error {
	p := Problems{}
	if name, checked := validateNameField(p, "name", in.Name, creating, 100); checked &&
		BuiltinPermissions(strings.ToUpper(strings.TrimSpace(name))) != nil {
		p.Add("name", "ADMIN and MEMBER are built in")
	}
	if in.Permissions == nil && creating {
		p.Add("permissions", "is required")
	}
	for _, perm := range in.Permissions {
		if !ValidPermission(perm) {
			p.Add("permissions", "unknown permission "+string(perm)+"; use <area>:read or <area>:write")
		}
	}
	return p.Err()
}

func normalizePermissions(ps []Permission) []Permission {
	seen := map[Permission]bool{}
	out := []Permission{}
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// CreateRole adds a custom role.
func (s *Service) CreateRole(ctx context.Context, c Caller, in RoleInput) (Role, error) {
	if err := validateRole(in, true); err != nil {
		return Role{}, err
	}
	if !c.Perms.Covers(NewPermissionSet(in.Permissions)) {
		return Role{}, &Error{Code: CodePermission, Message: "cannot create a role with permissions this key does not hold"}
	}
	orgID := c.OrgID
	now := s.now()
	r := Role{ID: NewID("role"), OrgID: orgID, Name: strings.TrimSpace(*in.Name),
		Permissions: normalizePermissions(in.Permissions), CreatedAt: now, UpdatedAt: now}
	err := s.d.Store.Write(ctx, func(tx Tx) error { return tx.CreateRole(r) })
	return r, err
}

// GetRole reads one custom role.
func (s *Service) GetRole(ctx context.Context, orgID, id string) (Role, error) {
	return readOne(ctx, s.d.Store, func(tx Tx) (Role, error) { return tx.GetRole(orgID, id) })
}

// ListRoles lists the custom roles of an organization.
func (s *Service) ListRoles(ctx context.Context, orgID string, pg Page) (List[Role], error) {
	return readPage(ctx, s.d.Store, func(tx Tx) ([]Role, int, error) { return tx.ListRoles(orgID, pg) })
}

// UpdateRole changes a role; members holding it get the new permissions on their next request.
func (s *Service) UpdateRole(ctx context.Context, c Caller, id string, in RoleInput) (r Role, err error) {
	if err := validateRole(in, false); err != nil {
		return Role{}, err
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if r, err = tx.GetRole(c.OrgID, id); err != nil {
			return err
		}
		if !c.Perms.Covers(NewPermissionSet(r.Permissions)) || !c.Perms.Covers(NewPermissionSet(in.Permissions)) {
			return &Error{Code: CodePermission, Message: "cannot change a role with permissions this key does not hold"}
		}
		if in.Name != nil {
			r.Name = strings.TrimSpace(*in.Name)
		}
		if in.Permissions != nil {
			r.Permissions = normalizePermissions(in.Permissions)
		}
		r.UpdatedAt = s.now()
		return tx.UpdateRole(r)
	})
	return r, err
}

// DeleteRole removes a role that no member holds.
func (s *Service) DeleteRole(ctx context.Context, orgID, id string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error {
		if _, err := tx.GetRole(orgID, id); err != nil {
			return err
		}
		n, err := tx.CountMembersWithRole(orgID, id)
		if err != nil {
			return err
		}
		if n > 0 {
			return Conflict("%d member(s) still hold this role", n)
		}
		return tx.DeleteRole(orgID, id)
	})
}
