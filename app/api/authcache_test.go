package api_test

import (
	"context"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/sqlite"
)

// The authentication cache (app/authcache.go) must never outlive a change: each test warms
// it with a request, changes a key, a member or a role, and checks the very next request.

// TestAuthCacheRevocations: a key rotated or deleted (here or by another process on the same
// file, as the CLI's `keys delete` does), or its member deleted, stops working on the very
// next request after cached ones.
func TestAuthCacheRevocations(t *testing.T) {
	t.Parallel()
	// Each change is the admin's; it answers the token that replaces the old one, if any.
	changes := map[string]func(t *testing.T, e *apitest.Env, memberID, keyID string) (replacement string){
		"key rotate": func(_ *testing.T, e *apitest.Env, _, keyID string) string {
			return e.Do("POST", "/orgs/c/keys/"+keyID+"/rotate", e.AdminKey, nil).Expect(200).Map()["token"].(string)
		},
		"key delete": func(_ *testing.T, e *apitest.Env, _, keyID string) string {
			e.Do("DELETE", "/orgs/c/keys/"+keyID, e.AdminKey, nil).Expect(204)
			return ""
		},
		"member delete": func(_ *testing.T, e *apitest.Env, memberID, _ string) string {
			e.Do("DELETE", "/orgs/c/members/"+memberID, e.AdminKey, nil).Expect(204)
			return ""
		},
		"key delete by another process": func(t *testing.T, e *apitest.Env, _, keyID string) string {
			db, err := sqlite.Open(e.Runtime.DB.Path())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := app.NewService(app.Deps{Store: db}).DeleteKey(context.Background(), nil, "", keyID); err != nil {
				t.Fatal(err)
			}
			return ""
		},
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := apitest.New(t)
			m, token := memberKey(e, e.Org.ID, app.RoleAdmin)
			keyID := keyIDOf(e, token)
			e.Do("GET", "/orgs/c", token, nil).Expect(200)
			e.Do("GET", "/orgs/c", token, nil).Expect(200)
			replacement := change(t, e, m.ID, keyID)
			e.Do("GET", "/orgs/c", token, nil).Expect(401)
			if replacement != "" {
				e.Do("GET", "/orgs/c", replacement, nil).Expect(200)
			}
		})
	}
}

// TestAuthCacheMemberRole: a member's new role grants and revokes on the next request.
func TestAuthCacheMemberRole(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	m, token := memberKey(e, e.Org.ID, app.RoleMember) // MEMBER lacks members:write
	create := map[string]any{"name": "New", "email": "new@example.com", "role": app.RoleMember}
	e.Do("POST", "/orgs/c/members", token, create).Expect(403)
	e.Do("PATCH", "/orgs/c/members/"+m.ID, e.AdminKey, map[string]any{"role": app.RoleAdmin}).Expect(200)
	e.Do("POST", "/orgs/c/members", token, create).Expect(201)
	e.Do("PATCH", "/orgs/c/members/"+m.ID, e.AdminKey, map[string]any{"role": app.RoleMember}).Expect(200)
	e.Do("POST", "/orgs/c/members", token, map[string]any{"name": "Other", "email": "other@example.com", "role": app.RoleMember}).Expect(403)
}

// TestAuthCacheRolePermissions: editing a custom role's permissions applies at once to the
// keys of the members holding it.
func TestAuthCacheRolePermissions(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	role := createRole(e, "contacts:read")
	_, token := memberKey(e, e.Org.ID, role.ID)
	e.Do("GET", "/orgs/c/contacts", token, nil).Expect(200)
	e.Do("PATCH", "/orgs/c/roles/"+role.ID, e.AdminKey, map[string]any{"name": role.Name, "permissions": []string{"webhooks:read"}}).Expect(200)
	e.Do("GET", "/orgs/c/contacts", token, nil).Expect(403)
	e.Do("GET", "/orgs/c/webhooks", token, nil).Expect(200)
}

// keyIDOf finds the id of a token's key by its preview.
func keyIDOf(e *apitest.Env, token string) string {
	e.T.Helper()
	preview := token[:8] + "…" + token[len(token)-4:]
	for _, k := range e.Do("GET", "/orgs/c/keys", e.AdminKey, nil).Expect(200).List() {
		if k["preview"] == preview {
			return k["id"].(string)
		}
	}
	e.T.Fatalf("no key with preview %s", preview)
	return ""
}
