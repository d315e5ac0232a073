package app

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
func BuiltinPermissions(role string) []Permission {
	switch role {
	case RoleAdmin:
		var all []Permission
		for _, a := range Areas {
			all = append(all, Read(a), Write(a))
		}
		return all
	case RoleMember:
		var ps []Permission
		for _, a := range Areas {
			ps = append(ps, Read(a))
		}
		for _, a := range memberAreas {
			ps = append(ps, Write(a))
		}
		return ps
	}
	return nil
}

// ValidPermission tells whether p names a known area and access.
func ValidPermission(p Permission) bool {
	area, access, ok := strings.Cut(string(p), ":")
	if !ok || (access != "read" && access != "write") {
		return false
	}
	for _, a := range Areas {
		if a == area {
			return true
		}
	}
	return false
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
