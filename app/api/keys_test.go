package api_test

import (
	"regexp"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

var apiTokenRE = regexp.MustCompile(`^sk_[0-9A-Za-z]{43}$`)

func TestKeyCreateAndList(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	created := e.Do("POST", "/orgs/c/keys", e.AdminKey, map[string]any{"name": "ci"}).Expect(201).Map()
	token, _ := created["token"].(string)
	if !apiTokenRE.MatchString(token) {
		t.Fatalf("token %q: want sk_ and 43 base62 characters", token)
	}
	apitest.CheckID(t, created["id"], "key")
	checkTimestamps(t, created, "created_at")
	if created["rotated_at"] != nil {
		t.Errorf("rotated_at of a new key = %v, want null", created["rotated_at"])
	}
	wantPreview := token[:8] + "…" + token[len(token)-4:]
	if created["preview"] != wantPreview || created["member_id"] != e.Owner.ID || created["org_id"] != e.Org.ID || created["name"] != "ci" {
		t.Fatalf("created %v", created)
	}
	e.Do("GET", "/orgs/c", token, nil).Expect(200)

	res := e.Do("GET", "/orgs/c/keys", e.AdminKey, nil).Expect(200)
	if strings.Contains(string(res.Body), token) || strings.Contains(string(res.Body), e.AdminKey) {
		t.Fatal("key list shows a full token")
	}
	list := res.List()
	if len(list) != 2 || res.Header.Get("pagination-count") != "2" {
		t.Fatalf("list %v", list)
	}
	allowed := map[string]bool{"id": true, "org_id": true, "member_id": true, "name": true, "preview": true, "created_at": true, "rotated_at": true}
	for _, k := range list {
		for field := range k {
			if !allowed[field] {
				t.Errorf("key list shows field %q", field)
			}
		}
		if p, _ := k["preview"].(string); !strings.HasPrefix(p, "sk_") || !strings.Contains(p, "…") {
			t.Errorf("preview %q", p)
		}
	}
	for _, k := range list {
		if k["id"] == created["id"] && k["preview"] != wantPreview {
			t.Errorf("listed preview %v, want %v", k["preview"], wantPreview)
		}
	}
}

// TestKeyForAnotherMember: a key for someone else needs members:write, so keys:write alone
// cannot borrow an admin's rights.
func TestKeyForAnotherMember(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	self, mKey := memberKey(e, e.Org.ID, app.RoleMember) // MEMBER has keys:write, not members:write
	sub, _ := e.OrgWithAdmin("Sub")
	subMember := e.Member(e.AdminKey, sub.ID, "Sub person", app.RoleMember)

	key := func(name, by, org string, b map[string]any, status int, code string, fields ...string) apitest.Scenario {
		return apitest.Scenario{Name: name, Method: "POST", URL: "/orgs/" + org + "/keys", Key: by, Body: b, Status: status, Invalid: status == 400, Code: code, Fields: fields}
	}
	e.Run(t, []apitest.Scenario{
		key("member for the owner", mKey, "c", map[string]any{"name": "x", "member_id": e.Owner.ID}, 403, "permission_denied"),
		key("member for itself by id", mKey, "c", map[string]any{"name": "x", "member_id": self.ID}, 201, ""),
		key("member for itself implicitly", mKey, "c", map[string]any{"name": "x"}, 201, ""),
		key("admin for the member", e.AdminKey, "c", map[string]any{"name": "x", "member_id": self.ID}, 201, ""),
		key("admin for an unknown member", e.AdminKey, "c", map[string]any{"name": "x", "member_id": "mem_AAAAAAAAAAAAAAAAAAAA"}, 404, "not_found"),
		key("admin for a member of a sub-org through c", e.AdminKey, "c", map[string]any{"name": "x", "member_id": subMember.ID}, 404, "not_found"),
		key("admin in a sub-org without member_id", e.AdminKey, sub.ID, map[string]any{"name": "x"}, 400, "invalid_argument", "member_id"),
		key("admin in a sub-org for its member", e.AdminKey, sub.ID, map[string]any{"name": "x", "member_id": subMember.ID}, 201, ""),
		key("missing name", e.AdminKey, "c", map[string]any{}, 400, "invalid_argument", "name"),
		key("token is not settable", e.AdminKey, "c", map[string]any{"name": "x", "token": "sk_mine"}, 400, "invalid_argument", "token"),
	})
}

// TestKeyManagementOfOthers: a member rotates and deletes its own keys; others' need
// members:write.
func TestKeyManagementOfOthers(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	_, mKey := memberKey(e, e.Org.ID, app.RoleMember)
	var own, admins app.NewKey
	e.Do("POST", "/orgs/c/keys", mKey, map[string]any{"name": "own"}).Expect(201).JSON(&own)
	e.Do("POST", "/orgs/c/keys", e.AdminKey, map[string]any{"name": "admin's"}).Expect(201).JSON(&admins)
	sub, subKey := e.OrgWithAdmin("Sub")

	e.Run(t, []apitest.Scenario{
		{Name: "member rotates an admin's key", Method: "POST", URL: "/orgs/c/keys/" + admins.ID + "/rotate", Key: mKey, Status: 403, Code: "permission_denied"},
		{Name: "member deletes an admin's key", Method: "DELETE", URL: "/orgs/c/keys/" + admins.ID, Key: mKey, Status: 403, Code: "permission_denied"},
		{Name: "member rotates its own key", Method: "POST", URL: "/orgs/c/keys/" + own.ID + "/rotate", Key: mKey, Status: 200},
		{Name: "member deletes its own key", Method: "DELETE", URL: "/orgs/c/keys/" + own.ID, Key: mKey, Status: 204},
		{Name: "sub-org admin rotates a parent key", Method: "POST", URL: "/orgs/c/keys/" + admins.ID + "/rotate", Key: subKey, Status: 404, Code: "not_found"},
		{Name: "parent key through the wrong org", Method: "DELETE", URL: "/orgs/" + sub.ID + "/keys/" + admins.ID, Key: e.AdminKey, Status: 404, Code: "not_found"},
		{Name: "admin deletes another's key", Method: "DELETE", URL: "/orgs/c/keys/" + admins.ID, Key: e.AdminKey, Status: 204},
	})
	e.Do("GET", "/orgs/c", admins.Token, nil).ExpectError(401, "unauthenticated")
}

func TestKeyListPagination(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	for i := 0; i < 4; i++ {
		e.Do("POST", "/orgs/c/keys", e.AdminKey, map[string]any{"name": "k"}).Expect(201)
	}
	res := e.Do("GET", "/orgs/c/keys?take=2&page=3", e.AdminKey, nil).Expect(200)
	if n := len(res.List()); n != 1 {
		t.Fatalf("page 3 of 5 keys by 2 has %d keys", n)
	}
	if res.Header.Get("pagination-count") != "5" || res.Header.Get("pagination-page") != "3" || res.Header.Get("pagination-take") != "2" {
		t.Errorf("headers %v", res.Header)
	}
	// A sub-organization's keys are its own.
	sub, _ := e.OrgWithAdmin("Sub")
	if n := e.Do("GET", "/orgs/"+sub.ID+"/keys", e.AdminKey, nil).Expect(200).Header.Get("pagination-count"); n != "1" {
		t.Errorf("sub-org key count %s, want 1", n)
	}
}
