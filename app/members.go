package app

import (
	"context"
	"strings"
)

// Member is a person of an organization. Keys act as their member; the spec's `user` objects
// ({id, name, avatar}) and assignees are members.
type Member struct {
	ID        string `json:"id"`
	OrgID     string `json:"org_id"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	Avatar    string `json:"avatar"`
	Role      string `json:"role"`
	CreatedAt Time   `json:"created_at"`
	UpdatedAt Time   `json:"updated_at"`
}

// User is the short form of a member that the spec nests in notes and chats.
type User struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Avatar string `json:"avatar"`
}

// User returns the member's short form.
func (m Member) User() User { return User{ID: m.ID, Name: m.Name, Avatar: m.Avatar} }

// MemberTx is the members part of a transaction.
type MemberTx interface {
	CreateMember(m Member) error
	GetMember(orgID, id string) (Member, error)
	UpdateMember(m Member) error
	DeleteMember(orgID, id string) error
	ListMembers(orgID string, p Page) ([]Member, int, error)
	CountMembersWithRole(orgID, role string) (int, error)
	FirstAdmin(orgID string) (Member, error)
}

// MemberInput creates a member.
type MemberInput struct {
	Name   string `json:"name"`
	Email  string `json:"email"`
	Avatar string `json:"avatar"`
	Role   string `json:"role"`
}

// MemberPatch changes a member.
type MemberPatch struct {
	Name   *string `json:"name"`
	Email  *string `json:"email"`
	Avatar *string `json:"avatar"`
	Role   *string `json:"role"`
}

func validateEmail(p Problems, field, email string, required bool) {
	if email == "" {
		if required {
			p.Add(field, "is required")
		}
		return
	}
	if !validEmail(email) {
		p.Add(field, "must be an email address")
	}
}

// IsNotFound reports whether err is a not_found Error.
func IsNotFound(err error) bool {
	e, ok := AsError(err)
	return ok && e.Code == CodeNotFound
}

// CreateMember adds a member to the caller's organization with a role the caller may grant.
func (s *Service) CreateMember(ctx context.Context, c Caller, in MemberInput) (Member, error) {
	p := Problems{}
	validateName(p, "name", in.Name, 255)
	validateEmail(p, "email", in.Email, true)
	validateURL(p, "avatar", in.Avatar)
	if in.Role == "" {
		in.Role = RoleMember
	}
	if err := p.Err(); err != nil {
		return Member{}, err
	}
	now := s.now()
	m := Member{ID: NewID("mem"), OrgID: c.OrgID, Name: strings.TrimSpace(in.Name), Email: strings.ToLower(in.Email),
		Avatar: in.Avatar, Role: in.Role, CreatedAt: now, UpdatedAt: now}
	err := s.d.Store.Write(ctx, func(tx Tx) error {
		if err := checkGrant(tx, c, m.Role); err != nil {
			return err
		}
		return tx.CreateMember(m)
	})
	return m, err
}

// GetMember reads one member of the organization.
func (s *Service) GetMember(ctx context.Context, orgID, id string) (Member, error) {
	return readOne(ctx, s.d.Store, func(tx Tx) (Member, error) { return tx.GetMember(orgID, id) })
}

// ListMembers lists an organization's members.
func (s *Service) ListMembers(ctx context.Context, orgID string, pg Page) (List[Member], error) {
	return readPage(ctx, s.d.Store, func(tx Tx) ([]Member, int, error) { return tx.ListMembers(orgID, pg) })
}

// UpdateMember changes a member; the last ADMIN cannot lose the role, and a role change
// needs a caller whose permissions cover both the old and the new role.
func (s *Service) UpdateMember(ctx context.Context, c Caller, id string, in MemberPatch) (m Member, err error) {
	p := Problems{}
	if in.Name != nil {
		validateName(p, "name", *in.Name, 255)
	}
	if in.Email != nil {
		validateEmail(p, "email", *in.Email, true)
	}
	if in.Avatar != nil {
		validateURL(p, "avatar", *in.Avatar)
	}
	if err := p.Err(); err != nil {
		return Member{}, err
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if m, err = tx.GetMember(c.OrgID, id); err != nil {
			return err
		}
		if in.Role != nil && *in.Role != m.Role {
			if err := checkGrant(tx, c, *in.Role); err != nil {
				return err
			}
			if err := checkGrant(tx, c, m.Role); err != nil {
				return err // nor take away a role it could not have given
			}
			if err := keepOneAdmin(tx, m); err != nil {
				return err
			}
			m.Role = *in.Role
		}
		applyMemberPatch(&m, in)
		m.UpdatedAt = s.now()
		return tx.UpdateMember(m)
	})
	return m, err
}

func applyMemberPatch(m *Member, in MemberPatch) {
	if in.Name != nil {
		m.Name = strings.TrimSpace(*in.Name)
	}
	if in.Email != nil {
		m.Email = strings.ToLower(*in.Email)
	}
	if in.Avatar != nil {
		m.Avatar = *in.Avatar
	}
}

// keepOneAdmin refuses a change that would leave a top-level organization with no ADMIN.
// A sub-organization may have none: its parent's keys administer it.
func keepOneAdmin(tx Tx, m Member) error {
	if m.Role != RoleAdmin {
		return nil
	}
	org, err := tx.GetOrg(m.OrgID)
	if err != nil || org.ParentOrgID != nil {
		return err
	}
	n, err := tx.CountMembersWithRole(m.OrgID, RoleAdmin)
	if err != nil {
		return err
	}
	if n <= 1 {
		return Conflict("the last ADMIN of an organization cannot be removed or demoted")
	}
	return nil
}

// DeleteMember removes a member and, with it, every key it made; its chats are unassigned
// first, each with its chat.assigned.
func (s *Service) DeleteMember(ctx context.Context, orgID, id string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error {
		m, err := tx.GetMember(orgID, id)
		if err != nil {
			return err
		}
		if err := keepOneAdmin(tx, m); err != nil {
			return err
		}
		if err := s.unassignAll(tx, orgID, id); err != nil {
			return err
		}
		return tx.DeleteMember(orgID, id)
	})
}
