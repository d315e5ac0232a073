package api_test

import (
	"fmt"
	"strconv"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

// TestContactListCountFollowsWrites: the unfiltered list's pagination-count comes from a
// triggers-kept counter (migration 00019). After every kind of write it equals the contacts
// listed and the count of a filter that matches them all (which counts the rows).
func TestContactListCountFollowsWrites(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	sub, subKey := e.OrgWithAdmin("Sub")
	check := func(step string, want int) {
		t.Helper()
		res := e.Do("GET", "/orgs/c/contacts?take=100", e.AdminKey, nil).Expect(200)
		filtered := e.Do("GET", "/orgs/c/contacts?take=1&blocked=false", e.AdminKey, nil).Expect(200)
		got := res.Header.Get("pagination-count")
		if got != strconv.Itoa(want) || len(res.List()) != want || filtered.Header.Get("pagination-count") != got {
			t.Fatalf("%s: pagination-count %s, %d listed, filtered count %s; want %d", step, got,
				len(res.List()), filtered.Header.Get("pagination-count"), want)
		}
	}
	check("empty", 0)
	var ids []string
	for i := range 4 {
		c := e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": fmt.Sprintf("C%d", i)}).Expect(201).Map()
		ids = append(ids, c["id"].(string))
	}
	e.Do("POST", "/orgs/"+sub.ID+"/contacts", subKey, map[string]any{"name": "elsewhere"}).Expect(201)
	check("created", 4)
	ctBulkCall(e, "/orgs/c/contacts/bulk", []app.BulkChannel{{Email: "a@example.com", Name: "A"}, {Email: "b@example.com", Name: "B"}})
	check("bulk", 6)
	e.Do("DELETE", "/orgs/c/contacts/"+ids[0], e.AdminKey, nil).Expect(204)
	check("deleted", 5)
	e.Do("POST", "/orgs/c/contacts/merge", e.AdminKey, map[string]any{"source_contact_id": ids[1], "target_contact_id": ids[2]}).Expect(200)
	check("merged", 4)
	if got := e.Do("GET", "/orgs/"+sub.ID+"/contacts", subKey, nil).Expect(200).Header.Get("pagination-count"); got != "1" {
		t.Fatalf("sub-organization count %s, want 1", got)
	}
}
