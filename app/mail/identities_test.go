package mail_test

import (
	"slices"
	"strings"
	"testing"

	"wsapi/app"
)

// identityFields are every field of the spec's Email identity, and of its nested domain.
var (
	identityFields       = []string{"id", "email", "name", "status", "domain", "is_default", "click_tracking", "open_tracking", "verified_at", "created_at", "updated_at"}
	identityDomainFields = []string{"id", "domain", "dkim_status", "dkim_tokens", "verified_at", "created_at", "updated_at"}
)

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sameKeys(t *testing.T, what string, m map[string]any, want []string) {
	t.Helper()
	w := slices.Clone(want)
	slices.Sort(w)
	if got := keys(m); !slices.Equal(got, w) {
		t.Fatalf("%s fields %v, want %v", what, got, w)
	}
}

func TestIdentityShapeFollowsItsDomain(t *testing.T) {
	t.Parallel()
	e, dnsSrv := domainEnv(t)
	var d app.Domain
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "news.example.test"}).Expect(201).JSON(&d)
	m := e.Do("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": "Hello@News.Example.test"}).Expect(201).Map()
	sameKeys(t, "identity", m, identityFields)
	dom, _ := m["domain"].(map[string]any)
	sameKeys(t, "identity domain", dom, identityDomainFields)
	if m["email"] != "hello@news.example.test" || m["name"] != nil || m["status"] != "PENDING" || m["is_default"] != false ||
		m["click_tracking"] != false || m["open_tracking"] != false || m["verified_at"] != nil || str(m, "created_at") == "" ||
		str(m, "updated_at") == "" || !strings.HasPrefix(str(m, "id"), "eid_") {
		t.Fatalf("identity %v", m)
	}
	toks, _ := dom["dkim_tokens"].([]any)
	if dom["id"] != d.ID || dom["domain"] != "news.example.test" || dom["dkim_status"] != "PENDING" || dom["verified_at"] != nil ||
		len(toks) != 1 || toks[0].(map[string]any)["name"] != d.DKIMTokens[0].Name || toks[0].(map[string]any)["value"] != d.DKIMTokens[0].Value ||
		dom["created_at"] != d.CreatedAt.String() {
		t.Fatalf("nested domain %v", dom)
	}
	id := str(m, "id")
	// A failed check makes it FAILED; publishing the records and verifying makes it VERIFIED.
	m = e.Do("POST", "/orgs/c/emails/identities/"+id+"/verify", e.AdminKey, nil).Expect(200).Map()
	if m["status"] != "FAILED" || m["verified_at"] != nil {
		t.Fatalf("identity after a failed check %v", m)
	}
	publish(dnsSrv, d)
	e.Clock.Advance(3e9)
	e.Do("POST", "/orgs/c/domains/"+d.ID+"/verify", e.AdminKey, nil).Expect(200)
	m = e.Do("GET", "/orgs/c/emails/identities/"+id, e.AdminKey, nil).Expect(200).Map()
	dom = m["domain"].(map[string]any)
	now := app.At(e.Clock.Now()).String()
	if m["status"] != "VERIFIED" || m["verified_at"] != now || dom["dkim_status"] != "VERIFIED" || dom["verified_at"] != now {
		t.Fatalf("identity after verify %v", m)
	}
	// The same shape in the list and after PATCH.
	l := e.Do("GET", "/orgs/c/emails/identities", e.AdminKey, nil).Expect(200).List()
	if len(l) != 1 {
		t.Fatalf("list %v", l)
	}
	sameKeys(t, "listed identity", l[0], identityFields)
	m = e.Do("PATCH", "/orgs/c/emails/identities/"+id, e.AdminKey, map[string]any{"name": "News"}).Expect(200).Map()
	sameKeys(t, "patched identity", m, identityFields)
	if m["name"] != "News" || m["status"] != "VERIFIED" {
		t.Fatalf("patched %v", m)
	}
	m = e.Do("PATCH", "/orgs/c/emails/identities/"+id, e.AdminKey, map[string]any{"name": nil}).Expect(200).Map()
	if m["name"] != nil {
		t.Fatalf("name null %v", m)
	}
}

func TestIdentityCreateValidation(t *testing.T) {
	t.Parallel()
	e, _ := domainEnv(t)
	var d app.Domain
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "mine.test"}).Expect(201).JSON(&d)
	for _, bad := range []string{"", "nobody", "a@other.test", "a@sub.mine.test", "a@mine.test.evil.test", "A <a@mine.test>"} {
		e.DoInvalid("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": bad}).ExpectError(400, "invalid_argument", "email")
	}
	// Another organization's domain does not count.
	other, otherKey := e.OrgWithAdmin("Other")
	e.Do("POST", "/orgs/c/domains", otherKey, map[string]string{"domain": "theirs.test"}).Expect(201)
	e.Do("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": "a@theirs.test"}).ExpectError(400, "invalid_argument", "email")
	e.Do("POST", "/orgs/"+other.ID+"/emails/identities", e.AdminKey, map[string]any{"email": "a@theirs.test"}).Expect(201)
	e.DoInvalid("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": "a@mine.test", "name": strings.Repeat("é", 256)}).
		ExpectError(400, "invalid_argument", "name")
	e.DoInvalid("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": "a@mine.test", "status": "VERIFIED"}).
		ExpectError(400, "invalid_argument", "status")
	e.Do("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": "a@mine.test", "name": strings.Repeat("é", 255)}).Expect(201)
	e.Do("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": "A@mine.test"}).ExpectError(409, "conflict", "email")
}

func TestIdentityPatch(t *testing.T) {
	t.Parallel()
	e, _ := domainEnv(t)
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "mine.test"}).Expect(201)
	var a, b app.EmailIdentity
	e.Do("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": "a@mine.test", "is_default": true}).Expect(201).JSON(&a)
	e.Do("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": "b@mine.test"}).Expect(201).JSON(&b)
	if !a.IsDefault || b.IsDefault {
		t.Fatalf("defaults %v %v", a.IsDefault, b.IsDefault)
	}
	path := "/orgs/c/emails/identities/" + b.ID
	// name: 255 characters pass, 256 do not.
	e.Clock.Advance(1e9)
	m := e.Do("PATCH", path, e.AdminKey, map[string]any{"name": strings.Repeat("ü", 255)}).Expect(200).Map()
	if m["name"] != strings.Repeat("ü", 255) || m["updated_at"] != app.At(e.Clock.Now()).String() || m["created_at"] != b.CreatedAt.String() {
		t.Fatalf("patched name %v", m)
	}
	e.DoInvalid("PATCH", path, e.AdminKey, map[string]any{"name": strings.Repeat("ü", 256)}).ExpectError(400, "invalid_argument", "name")
	e.DoInvalid("PATCH", path, e.AdminKey, map[string]any{"email": "c@mine.test"}).ExpectError(400, "invalid_argument", "email")
	e.DoInvalid("PATCH", path, e.AdminKey, map[string]any{"is_default": "yes"}).ExpectError(400, "invalid_argument", "is_default")
	// is_default on B unsets A in the same request.
	m = e.Do("PATCH", path, e.AdminKey, map[string]any{"is_default": true}).Expect(200).Map()
	if m["is_default"] != true {
		t.Fatalf("b %v", m)
	}
	l := e.Do("GET", "/orgs/c/emails/identities", e.AdminKey, nil).Expect(200).List()
	var defaults []any
	for _, x := range l {
		if x["is_default"] == true {
			defaults = append(defaults, x["id"])
		}
	}
	if len(l) != 2 || len(defaults) != 1 || defaults[0] != b.ID || l[0]["id"] != b.ID {
		t.Fatalf("defaults %v in %v", defaults, l)
	}
	// Setting it again changes nothing; false leaves no default.
	e.Do("PATCH", path, e.AdminKey, map[string]any{"is_default": true}).Expect(200)
	e.Do("PATCH", path, e.AdminKey, map[string]any{"is_default": false}).Expect(200)
	for _, x := range e.Do("GET", "/orgs/c/emails/identities", e.AdminKey, nil).Expect(200).List() {
		if x["is_default"] != false {
			t.Fatalf("identity still default %v", x)
		}
	}
	// Tracking toggles, each on its own, leave the rest alone.
	m = e.Do("PATCH", path, e.AdminKey, map[string]any{"click_tracking": true}).Expect(200).Map()
	if m["click_tracking"] != true || m["open_tracking"] != false || m["name"] != strings.Repeat("ü", 255) {
		t.Fatalf("click on %v", m)
	}
	m = e.Do("PATCH", path, e.AdminKey, map[string]any{"open_tracking": true, "click_tracking": false}).Expect(200).Map()
	if m["click_tracking"] != false || m["open_tracking"] != true {
		t.Fatalf("open on %v", m)
	}
	m = e.Do("PATCH", path, e.AdminKey, map[string]any{}).Expect(200).Map()
	if m["click_tracking"] != false || m["open_tracking"] != true || m["is_default"] != false {
		t.Fatalf("empty patch %v", m)
	}
	// Another organization sees nothing.
	_, otherKey := e.OrgWithAdmin("Other")
	e.Do("GET", path, otherKey, nil).ExpectError(404, "not_found")
	e.Do("PATCH", path, otherKey, map[string]any{"name": "x"}).ExpectError(404, "not_found")
	e.Do("DELETE", path, otherKey, nil).ExpectError(404, "not_found")
	e.Do("POST", path+"/verify", otherKey, nil).ExpectError(404, "not_found")
	e.Do("PATCH", "/orgs/c/emails/identities/eid_nothere", e.AdminKey, map[string]any{"name": "x"}).ExpectError(404, "not_found")
	// Delete.
	e.Do("DELETE", path, e.AdminKey, nil).Expect(204)
	e.Do("GET", path, e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("DELETE", path, e.AdminKey, nil).ExpectError(404, "not_found")
	if l := e.Do("GET", "/orgs/c/emails/identities", e.AdminKey, nil).Expect(200).List(); len(l) != 1 || l[0]["id"] != a.ID {
		t.Fatalf("after delete %v", l)
	}
}

// A display name reaches the From header: a line break there would inject header fields and,
// stored, break every send of the identity. Create and PATCH refuse control characters.
func TestIdentityNameRefusesControlCharacters(t *testing.T) {
	t.Parallel()
	e, _ := domainEnv(t)
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "news.example.test"}).Expect(201)
	for _, name := range []string{"Eve\r\nBcc: evil@example.com", "Eve\nX", "Tab\there", "Nul\x00"} {
		m := e.Do("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": "a@news.example.test", "name": name}).Expect(400).Map()
		if fields := m["error"].(map[string]any)["fields"].(map[string]any); fields["name"] == nil {
			t.Fatalf("create with name %q: %v", name, m)
		}
	}
	id := str(e.Do("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": "a@news.example.test", "name": "Eve"}).Expect(201).Map(), "id")
	m := e.Do("PATCH", "/orgs/c/emails/identities/"+id, e.AdminKey, map[string]any{"name": "Eve\r\nBcc: evil@example.com"}).Expect(400).Map()
	if fields := m["error"].(map[string]any)["fields"].(map[string]any); fields["name"] == nil {
		t.Fatalf("patch: %v", m)
	}
	if got := e.Do("GET", "/orgs/c/emails/identities/"+id, e.AdminKey, nil).Expect(200).Map(); got["name"] != "Eve" {
		t.Fatalf("the refused PATCH changed the identity: %v", got)
	}
}
