package app

import "slices"

import "strings"

// Permission is "<area>:read" or "<area>:write". Write implies read.
type Permission string

// Areas are the parts of the API a role can be granted.
var Areas = []string{
	"org", "members", "keys", "contacts", "inbox", "broadcasts",
	"assistants", "knowledge", "emails", "connections", "webhooks",
}

// Read and Write build the two permissions of an area.
func Read(area string) Permission  { return Permission(area + ":read") }
func Write(area string) Permission { return Permission(area + ":write") }

// Built-in role names. A member's role is one of these or a custom role id.
const (
	RoleAdmin  = "ADMIN"
	RoleMember = "MEMBER"
)

// memberAreas are the areas MEMBER may change; it reads every area. Administration
// (organization settings, members, roles, webhooks, connections) is left to ADMIN.
var memberAreas = []string{"keys", "contacts", "inbox", "broadcasts", "assistants", "knowledge", "emails"}

// BuiltinPermissions lists what a built-in role holds, or nil for a name that is not built in.
// The lists are built once (every authenticated request asks) and shared: read only.
func BuiltinPermissions(role string) []Permission { return builtinPermissions[role] }

var builtinPermissions = map[string][]Permission{RoleAdmin: adminPermissions(), RoleMember: memberPermissions()}

func adminPermissions() []Permission {
	var all []Permission
	for _, a := range Areas {
		all = append(all, Read(a), Write(a))
	}
	return slices.Clip(all)
}

func memberPermissions() []Permission {
	var ps []Permission
	for _, a := range Areas {
		ps = append(ps, Read(a))
	}
	for _, a := range memberAreas {
		ps = append(ps, Write(a))
	}
	return slices.Clip(ps)
}

// ValidPermission tells whether p names a known area and access.
func ValidPermission(p Permission) bool {
	area, access, ok := strings.Cut(string(p), ":")
	return ok && (access == "read" || access == "write") && slices.Contains(Areas, area)
}

// PermissionSet answers whether a role grants a permission.
type PermissionSet map[Permission]bool

// NewPermissionSet builds a set in which every write also grants the area's read.
func NewPermissionSet(ps []Permission) PermissionSet {
	set := PermissionSet{}
	for _, p := range ps {
		set[p] = true
		if area, ok := strings.CutSuffix(string(p), ":write"); ok {
			set[Read(area)] = true
		}
	}
	return set
}

// Has reports whether p is granted.
func (s PermissionSet) Has(p Permission) bool { return s[p] }

// Covers reports whether s holds every permission of other: a caller may hand out (by a
// role, a member or a key) only what it holds itself, so members:write is no back door to
// ADMIN.
func (s PermissionSet) Covers(other PermissionSet) bool {
	for p := range other {
		if !s[p] {
			return false
		}
	}
	return true
}

// rolePermissions is what a role name grants in an organization.
func rolePermissions(tx Tx, orgID, role string) (PermissionSet, error) {
	if ps := BuiltinPermissions(role); ps != nil {
		return NewPermissionSet(ps), nil
	}
	r, err := tx.GetRole(orgID, role)
	if err != nil {
		if IsNotFound(err) {
			return nil, Invalid("role", "must be ADMIN, MEMBER or the id of a role of this organization")
		}
		return nil, err
	}
	return NewPermissionSet(r.Permissions), nil
}

// checkGrant refuses to hand out a role the caller's own permissions do not cover.
func checkGrant(tx Tx, c Caller, role string) error {
	ps, err := rolePermissions(tx, c.OrgID, role)
	if err != nil {
		return err
	}
	if !c.Perms.Covers(ps) {
		return &Error{Code: CodePermission, Message: "cannot grant a role with permissions this key does not hold"}
	}
	return nil
}
