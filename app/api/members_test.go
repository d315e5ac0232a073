package api_test

import (
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

func TestMemberCRUD(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	created := e.Do("POST", "/orgs/c/members", e.AdminKey, map[string]any{
		"name": "  Ada Lovelace ", "email": "Ada@Example.com", "avatar": "https://example.com/a.png",
	}).Expect(201).Map()
	apitest.CheckID(t, created["id"], "mem")
	checkTimestamps(t, created, "created_at", "updated_at")
	if created["name"] != "Ada Lovelace" || created["email"] != "ada@example.com" || created["role"] != app.RoleMember || created["org_id"] != e.Org.ID {
		t.Fatalf("created %v", created)
	}
	id := created["id"].(string)

	got := e.Do("GET", "/orgs/c/members/"+id, e.AdminKey, nil).Expect(200).Map()
	if got["id"] != id || got["email"] != "ada@example.com" {
		t.Fatalf("get %v", got)
	}
	list := e.Do("GET", "/orgs/c/members", e.AdminKey, nil).Expect(200)
	if n := len(list.List()); n != 2 || list.Header.Get("pagination-count") != "2" {
		t.Fatalf("list has %d members, count header %q; want 2 (owner and Ada)", n, list.Header.Get("pagination-count"))
	}

	e.Clock.Advance(time.Second)
	patched := e.Do("PATCH", "/orgs/c/members/"+id, e.AdminKey, map[string]any{"name": "Ada King", "role": app.RoleAdmin}).Expect(200).Map()
	if patched["name"] != "Ada King" || patched["role"] != app.RoleAdmin || patched["email"] != "ada@example.com" {
		t.Fatalf("patched %v", patched)
	}
	if patched["updated_at"] == created["updated_at"] || patched["created_at"] != created["created_at"] {
		t.Errorf("timestamps after patch: %v -> %v", created, patched)
	}

	e.Do("DELETE", "/orgs/c/members/"+id, e.AdminKey, nil).Expect(204)
	e.Do("GET", "/orgs/c/members/"+id, e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("PATCH", "/orgs/c/members/"+id, e.AdminKey, map[string]any{"name": "x"}).ExpectError(404, "not_found")
	e.Do("DELETE", "/orgs/c/members/"+id, e.AdminKey, nil).ExpectError(404, "not_found")
}

func TestMemberValidation(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	e.Member(e.AdminKey, e.Org.ID, "Taken", app.RoleMember) // taken@example.com
	other, _ := e.OrgWithAdmin("Other")
	var otherRole app.Role
	e.Do("POST", "/orgs/"+other.ID+"/roles", e.AdminKey, map[string]any{"name": "theirs", "permissions": []string{"org:read"}}).Expect(201).JSON(&otherRole)

	long := strings.Repeat("é", 255)
	body := func(kv ...string) map[string]any {
		m := map[string]any{"name": "Person", "email": app.RandomBase62(8) + "@example.com"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	post := func(name string, b any, status int, code string, fields ...string) apitest.Scenario {
		return apitest.Scenario{Name: name, Method: "POST", URL: "/orgs/c/members", Key: e.AdminKey, Body: b, Status: status, Invalid: status == 400, Code: code, Fields: fields}
	}
	e.Run(t, []apitest.Scenario{
		post("empty body names name and email", nil, 400, "invalid_argument", "name", "email"),
		post("blank name", body("name", "   "), 400, "invalid_argument", "name"),
		post("name at 255 characters", body("name", long), 201, ""),
		post("name at 256 characters", body("name", long+"é"), 400, "invalid_argument", "name"),
		post("bad email", body("email", "not-an-address"), 400, "invalid_argument", "email"),
		post("email with display name", body("email", "Bob <bob@example.com>"), 400, "invalid_argument", "email"),
		post("avatar not http", body("avatar", "ftp://example.com/a.png"), 400, "invalid_argument", "avatar"),
		post("unknown role", body("role", "BOSS"), 400, "invalid_argument", "role"),
		post("role of another org", body("role", otherRole.ID), 400, "invalid_argument", "role"),
		post("duplicate email, other case", body("email", "TAKEN@example.com"), 409, "conflict", "email"),
		{Name: "same email in another org is fine", Method: "POST", URL: "/orgs/" + other.ID + "/members", Key: e.AdminKey,
			Body: body("email", "taken@example.com"), Status: 201},
		{Name: "patch to a taken email", Method: "PATCH", URL: "/orgs/c/members/" + e.Owner.ID, Key: e.AdminKey,
			Body: map[string]any{"email": "taken@example.com"}, Status: 409, Code: "conflict", Fields: []string{"email"}},
		{Name: "patch blank name", Invalid: true, Method: "PATCH", URL: "/orgs/c/members/" + e.Owner.ID, Key: e.AdminKey,
			Body: map[string]any{"name": ""}, Status: 400, Code: "invalid_argument", Fields: []string{"name"}},
		{Name: "patch unknown role", Method: "PATCH", URL: "/orgs/c/members/" + e.Owner.ID, Key: e.AdminKey,
			Body: map[string]any{"role": "role_nope"}, Status: 400, Code: "invalid_argument", Fields: []string{"role"}},
	})
}

// TestLastAdmin: a top-level organization always keeps one ADMIN; a sub-organization may
// have none, since its parent's keys administer it.
func TestLastAdmin(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	owner := "/orgs/c/members/" + e.Owner.ID
	e.Do("PATCH", owner, e.AdminKey, map[string]any{"role": app.RoleMember}).ExpectError(409, "conflict")
	e.Do("DELETE", owner, e.AdminKey, nil).ExpectError(409, "conflict")
	e.Do("PATCH", owner, e.AdminKey, map[string]any{"role": app.RoleAdmin, "name": "Still Owner"}).Expect(200)

	second, secondKey := memberKey(e, e.Org.ID, app.RoleAdmin)
	sub := e.SubOrg(e.AdminKey, e.Org.ID, "Sub")
	only := e.Member(e.AdminKey, sub.ID, "Only admin", app.RoleAdmin)
	e.Do("PATCH", owner, e.AdminKey, map[string]any{"role": app.RoleMember}).Expect(200)
	// The owner's key now acts as a MEMBER; the second ADMIN is the last one.
	e.Do("PATCH", owner, e.AdminKey, map[string]any{"role": app.RoleAdmin}).ExpectError(403, "permission_denied")
	e.Do("DELETE", "/orgs/c/members/"+second.ID, secondKey, nil).ExpectError(409, "conflict")
	e.Do("PATCH", "/orgs/c/members/"+second.ID, secondKey, map[string]any{"role": app.RoleMember}).ExpectError(409, "conflict")

	e.Do("PATCH", "/orgs/"+sub.ID+"/members/"+only.ID, secondKey, map[string]any{"role": app.RoleMember}).Expect(200)
	e.Do("DELETE", "/orgs/"+sub.ID+"/members/"+only.ID, secondKey, nil).Expect(204)
}

// TestDeletingMemberRevokesItsKeys: keys act as their member and go with it.
func TestDeletingMemberRevokesItsKeys(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	m, key := memberKey(e, e.Org.ID, app.RoleMember)
	e.Do("GET", "/orgs/c", key, nil).Expect(200)
	e.Do("DELETE", "/orgs/c/members/"+m.ID, e.AdminKey, nil).Expect(204)
	e.Do("GET", "/orgs/c", key, nil).ExpectError(401, "unauthenticated")
	for _, k := range e.Do("GET", "/orgs/c/keys", e.AdminKey, nil).Expect(200).List() {
		if k["member_id"] == m.ID {
			t.Fatalf("key %v of a deleted member is still listed", k["id"])
		}
	}
}

func TestRoleCRUD(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	created := e.Do("POST", "/orgs/c/roles", e.AdminKey, map[string]any{
		"name": "Support", "permissions": []string{"members:read", "contacts:write", "members:read"},
	}).Expect(201).Map()
	apitest.CheckID(t, created["id"], "role")
	checkTimestamps(t, created, "created_at", "updated_at")
	id := created["id"].(string)
	if perms, _ := created["permissions"].([]any); len(perms) != 2 || perms[0] != "contacts:write" || perms[1] != "members:read" {
		t.Fatalf("permissions %v: want sorted and without repeats", created["permissions"])
	}
	if got := e.Do("GET", "/orgs/c/roles/"+id, e.AdminKey, nil).Expect(200).Map(); got["name"] != "Support" {
		t.Fatalf("get %v", got)
	}
	if l := e.Do("GET", "/orgs/c/roles", e.AdminKey, nil).Expect(200).List(); len(l) != 1 || l[0]["id"] != id {
		t.Fatalf("list %v", l)
	}
	patched := e.Do("PATCH", "/orgs/c/roles/"+id, e.AdminKey, map[string]any{"name": "Helpdesk"}).Expect(200).Map()
	if patched["name"] != "Helpdesk" || len(patched["permissions"].([]any)) != 2 {
		t.Fatalf("patch of the name alone changed %v", patched)
	}

	holder := e.Member(e.AdminKey, e.Org.ID, "Holder", id)
	e.Do("DELETE", "/orgs/c/roles/"+id, e.AdminKey, nil).ExpectError(409, "conflict")
	e.Do("PATCH", "/orgs/c/members/"+holder.ID, e.AdminKey, map[string]any{"role": app.RoleMember}).Expect(200)
	e.Do("DELETE", "/orgs/c/roles/"+id, e.AdminKey, nil).Expect(204)
	e.Do("GET", "/orgs/c/roles/"+id, e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("DELETE", "/orgs/c/roles/"+id, e.AdminKey, nil).ExpectError(404, "not_found")
}

func TestRoleValidation(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	taken := createRole(e, "org:read")
	sub, subKey := e.OrgWithAdmin("Sub")
	role := func(name string, perms any) map[string]any { return map[string]any{"name": name, "permissions": perms} }
	post := func(name string, b any, status int, code string, fields ...string) apitest.Scenario {
		return apitest.Scenario{Name: name, Method: "POST", URL: "/orgs/c/roles", Key: e.AdminKey, Body: b, Status: status, Invalid: status == 400, Code: code, Fields: fields}
	}
	e.Run(t, []apitest.Scenario{
		post("unknown permission", role("r1", []string{"contacts:read", "teleport:write"}), 400, "invalid_argument", "permissions"),
		post("unknown access", role("r2", []string{"contacts:admin"}), 400, "invalid_argument", "permissions"),
		post("missing permissions", map[string]any{"name": "r3"}, 400, "invalid_argument", "permissions"),
		post("missing name", map[string]any{"permissions": []string{}}, 400, "invalid_argument", "name"),
		post("built-in name", role("ADMIN", []string{}), 400, "invalid_argument", "name"),
		post("name at 101 characters", role(strings.Repeat("n", 101), []string{}), 400, "invalid_argument", "name"),
		post("name at 100 characters", role(strings.Repeat("n", 100), []string{}), 201, ""),
		post("permissions not an array", role("r4", "org:read"), 400, "invalid_argument", "permissions"),
		post("duplicate name", role(taken.Name, []string{}), 409, "conflict", "name"),
		{Name: "same name in a sub-org", Method: "POST", URL: "/orgs/" + sub.ID + "/roles", Key: e.AdminKey,
			Body: role(taken.Name, []string{}), Status: 201},
		{Name: "patch unknown permission", Invalid: true, Method: "PATCH", URL: "/orgs/c/roles/" + taken.ID, Key: e.AdminKey,
			Body: map[string]any{"permissions": []string{"nope"}}, Status: 400, Code: "invalid_argument", Fields: []string{"permissions"}},
		{Name: "role of the parent from a sub-org key", Method: "GET", URL: "/orgs/c/roles/" + taken.ID, Key: subKey,
			Status: 404, Code: "not_found"},
		{Name: "patch role of the parent from a sub-org key", Method: "PATCH", URL: "/orgs/c/roles/" + taken.ID, Key: subKey,
			Body: map[string]any{"name": "x"}, Status: 404, Code: "not_found"},
	})
}

// TestSubOrgs: creation, listing with the pagination headers, and validation.
func TestSubOrgs(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	var ids []string
	for _, name := range []string{"S1", "S2", "S3"} {
		o := e.Do("POST", "/orgs/c/sub-orgs", e.AdminKey, map[string]any{"name": name}).Expect(201).Map()
		apitest.CheckID(t, o["id"], "org")
		if o["parent_org_id"] != e.Org.ID || o["name"] != name || o["plan"] != "free" {
			t.Fatalf("created %v", o)
		}
		ids = append(ids, o["id"].(string))
		e.Clock.Advance(time.Millisecond) // distinct created_at, so the order is by creation
	}
	pages := []struct {
		query string
		want  []string
		page  string
	}{
		{"", ids, "1"},
		{"?take=2", ids[:2], "1"},
		{"?take=2&page=2", ids[2:], "2"},
		{"?take=2&page=3", nil, "3"},
	}
	for _, p := range pages {
		t.Run("list"+p.query, func(t *testing.T) {
			res := e.For(t).Do("GET", "/orgs/c/sub-orgs"+p.query, e.AdminKey, nil).Expect(200)
			l := res.List()
			if len(l) != len(p.want) {
				t.Fatalf("got %d orgs, want %d", len(l), len(p.want))
			}
			for i := range l {
				if l[i]["id"] != p.want[i] {
					t.Errorf("item %d is %v, want %v", i, l[i]["id"], p.want[i])
				}
			}
			if res.Header.Get("pagination-count") != "3" || res.Header.Get("pagination-page") != p.page {
				t.Errorf("headers %v", res.Header)
			}
			if string(res.Body) == "null\n" {
				t.Error("an empty page must be [] not null")
			}
		})
	}
	// Grandchildren are not children.
	e.Do("POST", "/orgs/"+ids[0]+"/sub-orgs", e.AdminKey, map[string]any{"name": "G"}).Expect(201)
	if n := e.Do("GET", "/orgs/c/sub-orgs", e.AdminKey, nil).Expect(200).Header.Get("pagination-count"); n != "3" {
		t.Errorf("count after a grandchild %s, want 3", n)
	}
	if n := len(e.Do("GET", "/orgs/"+ids[0]+"/sub-orgs", e.AdminKey, nil).Expect(200).List()); n != 1 {
		t.Errorf("child lists %d sub-orgs, want 1", n)
	}
	e.Run(t, []apitest.Scenario{
		{Name: "blank name", Method: "POST", URL: "/orgs/c/sub-orgs", Key: e.AdminKey, Body: map[string]any{"name": " "}, Status: 400, Code: "invalid_argument", Fields: []string{"name"}},
		{Name: "parent_org_id is not settable", Invalid: true, Method: "POST", URL: "/orgs/c/sub-orgs", Key: e.AdminKey,
			Body: map[string]any{"name": "x", "parent_org_id": ids[1]}, Status: 400, Code: "invalid_argument", Fields: []string{"parent_org_id"}},
	})
}

// TestPatchOrg: name, logo_url and config change; plan, features and balance are CLI-only.
func TestPatchOrg(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	patch := func(name string, b any, status int, code string, fields ...string) apitest.Scenario {
		return apitest.Scenario{Name: name, Method: "PATCH", URL: "/orgs/c", Key: e.AdminKey, Body: b, Status: status, Invalid: status == 400, Code: code, Fields: fields}
	}
	e.Run(t, []apitest.Scenario{
		patch("empty name", map[string]any{"name": ""}, 400, "invalid_argument", "name"),
		patch("blank name", map[string]any{"name": "   "}, 400, "invalid_argument", "name"),
		patch("name too long", map[string]any{"name": strings.Repeat("x", 256)}, 400, "invalid_argument", "name"),
		patch("logo not a URL", map[string]any{"logo_url": "logo.png"}, 400, "invalid_argument", "logo_url"),
		patch("terms not a URL", map[string]any{"config": map[string]any{"terms_url": "javascript:alert(1)"}}, 400, "invalid_argument", "config.terms_url"),
		patch("plan is CLI-only", map[string]any{"plan": "business"}, 400, "invalid_argument", "plan"),
		patch("balance is CLI-only", map[string]any{"balance": 1e6}, 400, "invalid_argument", "balance"),
		patch("features are CLI-only", map[string]any{"features": map[string]any{"enterprise": true}}, 400, "invalid_argument", "features"),
		patch("unknown config field", map[string]any{"config": map[string]any{"phone": "1"}}, 400, "invalid_argument", "config.phone"),
	})
	before := e.Do("GET", "/orgs/c", e.AdminKey, nil).Expect(200).Map()
	e.Clock.Advance(time.Minute)
	after := e.Do("PATCH", "/orgs/c", e.AdminKey, map[string]any{
		"name": " Acme ", "logo_url": "https://example.com/logo.png",
		"config": map[string]any{"email": "hi@acme.test", "terms_url": "https://acme.test/terms"},
	}).Expect(200).Map()
	cfg, _ := after["config"].(map[string]any)
	if after["name"] != "Acme" || after["logo_url"] != "https://example.com/logo.png" || cfg["terms_url"] != "https://acme.test/terms" {
		t.Fatalf("after patch %v", after)
	}
	if after["updated_at"] == before["updated_at"] || after["created_at"] != before["created_at"] || after["balance"] != before["balance"] {
		t.Errorf("before %v after %v", before, after)
	}
	if got := e.Do("GET", "/orgs/c", e.AdminKey, nil).Expect(200).Map(); got["name"] != "Acme" {
		t.Errorf("patch not stored: %v", got)
	}
	// A parent key patches a child by id; the child's key cannot patch its parent.
	child, childKey := e.OrgWithAdmin("Child")
	e.Do("PATCH", "/orgs/"+child.ID, e.AdminKey, map[string]any{"name": "Kid"}).Expect(200)
	e.Do("PATCH", "/orgs/"+e.Org.ID, childKey, map[string]any{"name": "Mine"}).ExpectError(404, "not_found")
}
