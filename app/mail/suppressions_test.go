package mail_test

import (
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

func TestSuppressionList(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	for _, bad := range []string{"", "nobody", "a b@x.test", "Ann <ann@x.test>", strings.Repeat("a", 250) + "@x.test"} {
		e.DoInvalid("POST", "/orgs/c/suppressions", e.AdminKey, map[string]any{"email": bad}).ExpectError(400, "invalid_argument", "email")
	}
	e.DoInvalid("POST", "/orgs/c/suppressions", e.AdminKey, map[string]any{"email": "a@x.test", "reason": strings.Repeat("r", 256)}).
		ExpectError(400, "invalid_argument", "reason")
	e.DoInvalid("POST", "/orgs/c/suppressions", e.AdminKey, map[string]any{"email": "a@x.test", "why": "x"}).ExpectError(400, "invalid_argument", "why")

	first := e.Do("POST", "/orgs/c/suppressions", e.AdminKey, map[string]any{"email": "Ann@Example.test"}).Expect(201).Map()
	if first["email"] != "ann@example.test" || first["reason"] != "manual" || !strings.HasPrefix(str(first, "id"), "sup_") ||
		first["created_at"] != app.At(e.Clock.Now()).String() {
		t.Fatalf("suppression %v", first)
	}
	e.Clock.Advance(time.Minute)
	// Adding the address again keeps the first entry and answers it.
	again := e.Do("POST", "/orgs/c/suppressions", e.AdminKey, map[string]any{"email": "ann@example.TEST", "reason": "other"}).Expect(201).Map()
	if again["id"] != first["id"] || again["reason"] != "manual" || again["created_at"] != first["created_at"] {
		t.Fatalf("second add %v, first %v", again, first)
	}
	e.Clock.Advance(time.Minute)
	bob := e.Do("POST", "/orgs/c/suppressions", e.AdminKey, map[string]any{"email": "bob@other.test", "reason": "asked by phone"}).Expect(201).Map()
	e.Clock.Advance(time.Minute)
	e.Do("POST", "/orgs/c/suppressions", e.AdminKey, map[string]any{"email": "a_b%c@other.test"}).Expect(201)

	res := e.Do("GET", "/orgs/c/suppressions", e.AdminKey, nil).Expect(200)
	l := res.List()
	if len(l) != 3 || res.Header.Get("pagination-count") != "3" || l[0]["email"] != "a_b%c@other.test" || l[2]["id"] != first["id"] {
		t.Fatalf("list %v", l)
	}
	for q, want := range map[string][]string{
		"search=example":  {"ann@example.test"},
		"search=ANN":      {"ann@example.test"},
		"search=other":    {"a_b%c@other.test", "bob@other.test"},
		"search=%25":      {"a_b%c@other.test"},
		"search=_":        {"a_b%c@other.test"},
		"search=nothing":  {},
		"take=1&page=2":   {"bob@other.test"},
		"search=b@other.": {"bob@other.test"},
	} {
		var got []string
		for _, x := range e.Do("GET", "/orgs/c/suppressions?"+q, e.AdminKey, nil).Expect(200).List() {
			got = append(got, str(x, "email"))
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("%s: %v, want %v", q, got, want)
		}
	}
	e.DoInvalid("GET", "/orgs/c/suppressions?search="+strings.Repeat("s", 257), e.AdminKey, nil).ExpectError(400, "invalid_argument", "search")
	e.DoInvalid("GET", "/orgs/c/suppressions?take=101", e.AdminKey, nil).ExpectError(400, "invalid_argument", "take")

	// Another organization: its own list, and our entries are not found.
	_, otherKey := e.OrgWithAdmin("Other")
	if l := e.Do("GET", "/orgs/c/suppressions", otherKey, nil).Expect(200).List(); len(l) != 0 {
		t.Fatalf("other org sees %v", l)
	}
	e.Do("DELETE", "/orgs/c/suppressions/"+str(bob, "id"), otherKey, nil).ExpectError(404, "not_found")
	other := e.Do("POST", "/orgs/c/suppressions", otherKey, map[string]any{"email": "bob@other.test"}).Expect(201).Map()
	if other["id"] == bob["id"] {
		t.Fatalf("organizations share an entry")
	}
	// Delete.
	e.Do("DELETE", "/orgs/c/suppressions/"+str(bob, "id"), e.AdminKey, nil).Expect(204)
	e.Do("DELETE", "/orgs/c/suppressions/"+str(bob, "id"), e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("DELETE", "/orgs/c/suppressions/"+str(again, "id"), e.AdminKey, nil).Expect(204)
	if l := e.Do("GET", "/orgs/c/suppressions", e.AdminKey, nil).Expect(200).List(); len(l) != 1 {
		t.Fatalf("after deletes %v", l)
	}
	if l := e.Do("GET", "/orgs/c/suppressions", otherKey, nil).Expect(200).List(); len(l) != 1 {
		t.Fatalf("other org after our deletes %v", l)
	}
}

func TestRemovedSuppressionSendsAgain(t *testing.T) {
	t.Parallel()
	s := newEmailSetup(t)
	e := s.e
	ann := s.contact(t, "Ann", "ann@dest.test")
	sup := e.Do("POST", "/orgs/c/suppressions", e.AdminKey, map[string]any{"email": "ann@dest.test"}).Expect(201).Map()
	b := s.broadcast(t, ann)
	if done := waitBroadcast(t, e, b.ID, app.BroadcastSent); done.Counts.Skipped != 1 {
		t.Fatalf("counts %+v", done.Counts)
	}
	e.Do("DELETE", "/orgs/c/suppressions/"+str(sup, "id"), e.AdminKey, nil).Expect(204)
	b = s.broadcast(t, ann)
	if done := waitBroadcast(t, e, b.ID, app.BroadcastSent); done.Counts.Sent != 1 {
		t.Fatalf("counts %+v", done.Counts)
	}
	s.sink.Wait(t, 1, 5*time.Second)
}
