package api_test

import (
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

func TestGetOrgWithBootstrapKey(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	got := e.Do("GET", "/orgs/c", e.AdminKey, nil).Expect(200).Map()
	if got["id"] != e.Org.ID || got["name"] != "Default" {
		t.Fatalf("got %v", got)
	}
	if got["parent_org_id"] != nil {
		t.Errorf("top-level parent_org_id = %v, want null", got["parent_org_id"])
	}
}

// TestOrgTreeReach: a key reaches its organization and its descendants, never a parent, a
// sibling or an unknown id, and what it cannot reach reads as 404 even where it would lack
// the permission.
func TestOrgTreeReach(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	a, aKey := e.OrgWithAdmin("A")
	b, _ := e.OrgWithAdmin("B")
	a1 := e.SubOrg(aKey, a.ID, "A1")
	bMember := e.Member(e.AdminKey, b.ID, "B person", app.RoleMember)
	aMember := e.Member(e.AdminKey, a.ID, "A person", app.RoleMember)
	// A key of A whose custom role has no permission at all.
	var noPerms app.Role
	e.Do("POST", "/orgs/"+a.ID+"/roles", e.AdminKey, map[string]any{"name": "nothing", "permissions": []string{}}).Expect(201).JSON(&noPerms)
	weak := e.Member(e.AdminKey, a.ID, "weak", noPerms.ID)
	weakKey := e.Key(e.AdminKey, a.ID, weak.ID)

	get := func(name, key, path, id string) apitest.Scenario {
		return apitest.Scenario{Name: name, Method: "GET", URL: path, Key: key, Status: 200, JSON: map[string]any{"id": id}}
	}
	hidden := func(name, key, path string) apitest.Scenario {
		return apitest.Scenario{Name: name, Method: "GET", URL: path, Key: key, Status: 404, Code: "not_found"}
	}
	e.Run(t, []apitest.Scenario{
		get("sub-org key, c is the sub-org", aKey, "/orgs/c", a.ID),
		get("sub-org key, own id", aKey, "/orgs/"+a.ID, a.ID),
		hidden("sub-org key, parent", aKey, "/orgs/"+e.Org.ID),
		hidden("sub-org key, sibling", aKey, "/orgs/"+b.ID),
		hidden("sub-org key, sibling members", aKey, "/orgs/"+b.ID+"/members"),
		get("sub-org key, own child", aKey, "/orgs/"+a1.ID, a1.ID),
		hidden("sub-org key, unknown org", aKey, "/orgs/org_AAAAAAAAAAAAAAAAAAAA"),
		get("parent key, c is the parent", e.AdminKey, "/orgs/c", e.Org.ID),
		get("parent key, child by id", e.AdminKey, "/orgs/"+a.ID, a.ID),
		get("parent key, grandchild by id", e.AdminKey, "/orgs/"+a1.ID, a1.ID),
		hidden("child key cannot reach parent's object", aKey, "/orgs/c/members/"+e.Owner.ID),
		hidden("object of sibling through own org", aKey, "/orgs/c/members/"+bMember.ID),
		hidden("object of child through parent's c", e.AdminKey, "/orgs/c/members/"+aMember.ID),
		get("object of child through child id", e.AdminKey, "/orgs/"+a.ID+"/members/"+aMember.ID, aMember.ID),
		hidden("no permission, unreachable org: 404 not 403", weakKey, "/orgs/"+b.ID+"/members"),
		{Name: "no permission, own org: 403", Method: "GET", URL: "/orgs/c/members", Key: weakKey, Status: 403, Code: "permission_denied"},
	})
}

// TestPermissions: a custom role grants exactly its permissions, and write implies read.
func TestPermissions(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	// A member may be given only a role that the caller's own permissions cover.
	readers := createRole(e, "members:read")
	newMember := func(role string) map[string]any {
		return map[string]any{"name": "x", "email": app.RandomBase62(10) + "@example.com", "role": role}
	}
	cases := []struct {
		name         string
		perms        []string
		method, path string
		body         any
		status       int
	}{
		{"org:read lists members", []string{"org:read"}, "GET", "/orgs/c/members", nil, 403},
		{"members:read lists members", []string{"members:read"}, "GET", "/orgs/c/members", nil, 200},
		{"members:write implies read", []string{"members:write"}, "GET", "/orgs/c/members", nil, 200},
		{"members:read cannot create", []string{"members:read"}, "POST", "/orgs/c/members", newMember(readers.ID), 403},
		{"members:write creates a lesser member", []string{"members:write"}, "POST", "/orgs/c/members", newMember(readers.ID), 201},
		{"members:write cannot create an ADMIN", []string{"members:write"}, "POST", "/orgs/c/members", newMember(app.RoleAdmin), 403},
		{"members:write cannot create a MEMBER", []string{"members:write"}, "POST", "/orgs/c/members", newMember(app.RoleMember), 403},
		{"members:write cannot make a wider role", []string{"members:write"}, "POST", "/orgs/c/roles",
			map[string]any{"name": "wide", "permissions": []string{"org:write"}}, 403},
		{"org:read reads org", []string{"org:read"}, "GET", "/orgs/c", nil, 200},
		{"org:read cannot patch org", []string{"org:read"}, "PATCH", "/orgs/c", map[string]any{"name": "n"}, 403},
		{"org:write patches org", []string{"org:write"}, "PATCH", "/orgs/c", map[string]any{"name": "n"}, 200},
		{"org:write implies sub-org listing", []string{"org:write"}, "GET", "/orgs/c/sub-orgs", nil, 200},
		{"no permission reads nothing", []string{}, "GET", "/orgs/c", nil, 403},
		{"keys:read lists keys", []string{"keys:read"}, "GET", "/orgs/c/keys", nil, 200},
		{"keys:read cannot create keys", []string{"keys:read"}, "POST", "/orgs/c/keys", map[string]any{"name": "k"}, 403},
		{"members:read reads roles", []string{"members:read"}, "GET", "/orgs/c/roles", nil, 200},
		{"members:read cannot create roles", []string{"members:read"}, "POST", "/orgs/c/roles",
			map[string]any{"name": "r", "permissions": []string{"org:read"}}, 403},
		{"webhooks:write does not grant org:read", []string{"webhooks:write"}, "GET", "/orgs/c", nil, 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.For(t)
			key := e.RoleKey(e.Org.ID, tc.perms...)
			res := e.Do(tc.method, tc.path, key, tc.body)
			if tc.status == 403 {
				res.ExpectError(403, "permission_denied")
			} else {
				res.Expect(tc.status)
			}
		})
	}
}

// TestBuiltinMemberRole: MEMBER reads every area and changes its own work, not the
// organization's administration.
func TestBuiltinMemberRole(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	_, key := memberKey(e, e.Org.ID, app.RoleMember)
	e.Run(t, []apitest.Scenario{
		{Name: "read org", Method: "GET", URL: "/orgs/c", Key: key, Status: 200},
		{Name: "read members", Method: "GET", URL: "/orgs/c/members", Key: key, Status: 200},
		{Name: "patch org", Method: "PATCH", URL: "/orgs/c", Key: key, Body: map[string]any{"name": "x"}, Status: 403, Code: "permission_denied"},
		{Name: "create member", Method: "POST", URL: "/orgs/c/members", Key: key,
			Body: map[string]any{"name": "x", "email": "x@example.com"}, Status: 403, Code: "permission_denied"},
		{Name: "create sub-org", Method: "POST", URL: "/orgs/c/sub-orgs", Key: key, Body: map[string]any{"name": "x"}, Status: 403, Code: "permission_denied"},
		{Name: "create own key", Method: "POST", URL: "/orgs/c/keys", Key: key, Body: map[string]any{"name": "mine"}, Status: 201},
	})
}

// TestRoleChangeAppliesAtOnce: the member's role is read on every request.
func TestRoleChangeAppliesAtOnce(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	role := createRole(e, "org:read")
	m, key := memberKey(e, e.Org.ID, role.ID)

	e.Do("GET", "/orgs/c/members", key, nil).ExpectError(403, "permission_denied")
	e.Do("PATCH", "/orgs/c/roles/"+role.ID, e.AdminKey, map[string]any{"permissions": []string{"members:read"}}).Expect(200)
	e.Do("GET", "/orgs/c/members", key, nil).Expect(200)
	e.Do("GET", "/orgs/c", key, nil).ExpectError(403, "permission_denied")

	// From the custom role to ADMIN and back to MEMBER.
	e.Do("PATCH", "/orgs/c/members/"+m.ID, e.AdminKey, map[string]any{"role": app.RoleAdmin}).Expect(200)
	e.Do("PATCH", "/orgs/c", key, map[string]any{"name": "Renamed"}).Expect(200)
	e.Do("PATCH", "/orgs/c/members/"+m.ID, e.AdminKey, map[string]any{"role": app.RoleMember}).Expect(200)
	e.Do("PATCH", "/orgs/c", key, map[string]any{"name": "Again"}).ExpectError(403, "permission_denied")
	e.Do("GET", "/orgs/c", key, nil).Expect(200)
}

// TestRevocation: rotation and deletion take effect on the next request.
func TestRevocation(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	var nk app.NewKey
	e.Do("POST", "/orgs/c/keys", e.AdminKey, map[string]any{"name": "to rotate"}).Expect(201).JSON(&nk)
	e.Do("GET", "/orgs/c", nk.Token, nil).Expect(200)

	var rotated app.NewKey
	e.Do("POST", "/orgs/c/keys/"+nk.ID+"/rotate", e.AdminKey, nil).Expect(200).JSON(&rotated)
	if rotated.ID != nk.ID || rotated.Token == nk.Token || rotated.Preview == nk.Preview {
		t.Fatalf("rotate answered %+v, was %+v", rotated.APIKey, nk.APIKey)
	}
	if rotated.RotatedAt.IsZero() {
		t.Error("rotated_at not set")
	}
	e.Do("GET", "/orgs/c", nk.Token, nil).ExpectError(401, "unauthenticated")
	e.Do("GET", "/orgs/c", rotated.Token, nil).Expect(200)

	// A key may rotate itself; the token that asked stops working at once.
	var self app.NewKey
	e.Do("POST", "/orgs/c/keys/"+nk.ID+"/rotate", rotated.Token, nil).Expect(200).JSON(&self)
	e.Do("GET", "/orgs/c", rotated.Token, nil).ExpectError(401, "unauthenticated")
	e.Do("GET", "/orgs/c", self.Token, nil).Expect(200)

	e.Do("DELETE", "/orgs/c/keys/"+nk.ID, e.AdminKey, nil).Expect(204)
	e.Do("GET", "/orgs/c", self.Token, nil).ExpectError(401, "unauthenticated")
	e.Do("DELETE", "/orgs/c/keys/"+nk.ID, e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("POST", "/orgs/c/keys/"+nk.ID+"/rotate", e.AdminKey, nil).ExpectError(404, "not_found")
}

// TestUnauthenticated: every bad credential reads alike, as 401 unauthenticated with a
// WWW-Authenticate challenge, and is checked before the organization is looked up.
func TestUnauthenticated(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	cases := []struct{ name, path, auth string }{
		{"missing header", "/orgs/c", ""},
		{"unknown sk_ token", "/orgs/c", "Bearer sk_" + app.RandomBase62(43)},
		{"not a token", "/orgs/c", "Bearer hello"},
		{"empty bearer", "/orgs/c", "Bearer "},
		{"basic scheme", "/orgs/c", "Basic dXNlcjpwYXNz"},
		{"token without scheme", "/orgs/c", e.AdminKey},
		{"unknown org without credential", "/orgs/org_AAAAAAAAAAAAAAAAAAAA/members", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.For(t)
			res := e.Send(withAuthorization(t, e, "GET", tc.path, tc.auth)).ExpectError(401, "unauthenticated")
			if res.Header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
}

// TestBearerSchemeCaseInsensitive: RFC 7235 makes the scheme name case-insensitive.
func TestBearerSchemeCaseInsensitive(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		t.Run(scheme, func(t *testing.T) {
			e := e.For(t)
			e.Send(withAuthorization(t, e, "GET", "/orgs/c", scheme+" "+e.AdminKey)).Expect(200)
		})
	}
}
