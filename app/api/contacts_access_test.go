package api_test

import (
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

func TestContactsOfAnotherOrgAreNotFound(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	a, keyA := e.OrgWithAdmin("A")
	b, keyB := e.OrgWithAdmin("B")
	inA := "/orgs/" + a.ID
	ca := ctContact(e, keyA, a.ID, map[string]any{"name": "A's", "channels": []map[string]any{{"type": "email", "email": "a@example.com"}}})["id"].(string)
	na := e.Do("POST", inA+"/contacts/"+ca+"/notes", keyA, map[string]any{"content": "A's note"}).Expect(201).Map()["id"].(string)
	ma := e.Do("POST", inA+"/contacts/"+ca+"/memories", keyA, map[string]any{"type": "FACT", "importance": 0.5, "content": "A's"}).Expect(201).Map()["id"].(string)
	sa := ctSegment(e, keyA, a.ID, "A's segment")
	e.Do("POST", inA+"/segments/"+sa+"/contacts", keyA, map[string]any{"contact_ids": []string{ca}}).Expect(200)
	snapshot := func() string {
		return string(e.Do("GET", inA+"/contacts/"+ca, keyA, nil).Expect(200).Body) +
			string(e.Do("GET", inA+"/contacts/"+ca+"/notes", keyA, nil).Expect(200).Body) +
			string(e.Do("GET", inA+"/contacts/"+ca+"/memories", keyA, nil).Expect(200).Body)
	}
	before := snapshot()

	// B's own objects, to pair with A's in one request.
	cb := ctContact(e, keyB, b.ID, map[string]any{"name": "B's"})["id"].(string)
	nb := e.Do("POST", "/orgs/"+b.ID+"/contacts/"+cb+"/notes", keyB, map[string]any{"content": "B's note"}).Expect(201).Map()["id"].(string)
	sb := ctSegment(e, keyB, b.ID, "B's segment")

	// From B's key in B, and from the parent's admin key in the parent ("c"), A's ids are
	// unknown on every route.
	for _, who := range []struct{ name, org, key, own, ownSeg, ownNote string }{
		{"sibling", b.ID, keyB, cb, sb, nb},
		{"parent org", "c", e.AdminKey, ctNamed(e, "Parent's"), ctSegment(e, e.AdminKey, "c", "Parent's"), ""},
	} {
		t.Run(who.name, func(t *testing.T) {
			e := e.For(t)
			o := "/orgs/" + who.org
			c := o + "/contacts/" + ca
			calls := []struct {
				method, path string
				body         any
			}{
				{"GET", c, nil},
				{"PATCH", c, map[string]any{"blocked": true}},
				{"DELETE", c, nil},
				{"POST", c + "/channels", map[string]any{"type": "custom", "user_id": "x"}},
				{"GET", c + "/notes", nil},
				{"POST", c + "/notes", map[string]any{"content": "sneaky"}},
				{"DELETE", c + "/notes/" + na, nil},
				{"GET", c + "/memories", nil},
				{"POST", c + "/memories", map[string]any{"type": "FACT", "importance": 1, "content": "sneaky"}},
				{"DELETE", c + "/memories/" + ma, nil},
				{"DELETE", o + "/contacts/" + who.own + "/memories/" + ma, nil},
				{"POST", o + "/contacts/merge", map[string]any{"source_contact_id": ca, "target_contact_id": who.own}},
				{"POST", o + "/contacts/merge", map[string]any{"source_contact_id": who.own, "target_contact_id": ca}},
				{"POST", o + "/contacts/merge/dry", map[string]any{"source_contact_id": ca, "target_contact_id": who.own}},
				{"POST", o + "/segments/" + who.ownSeg + "/contacts", map[string]any{"contact_ids": []string{ca}}},
				{"DELETE", o + "/segments/" + who.ownSeg + "/contacts/" + ca, nil},
				{"GET", o + "/segments/" + sa, nil},
				{"PATCH", o + "/segments/" + sa, map[string]any{"name": "mine"}},
				{"DELETE", o + "/segments/" + sa, nil},
				{"POST", o + "/segments/" + sa + "/contacts", map[string]any{"contact_ids": []string{who.own}}},
				{"DELETE", o + "/segments/" + sa + "/contacts/" + ca, nil},
			}
			if who.ownNote != "" {
				calls = append(calls, struct {
					method, path string
					body         any
				}{"DELETE", c + "/notes/" + who.ownNote, nil})
			}
			for _, call := range calls {
				if res := e.Do(call.method, call.path, who.key, call.body); res.Status != 404 || res.ErrorCode() != "not_found" {
					t.Errorf("%s %s: %d %s, want 404 not_found", call.method, call.path, res.Status, res.Body)
				}
			}
			// Bulk and list never see it either.
			var r app.BulkResult
			e.Do("POST", o+"/contacts/bulk/dry", who.key, map[string]any{"channels": []map[string]any{
				{"contact_id": ca, "user_id": "x"}, {"email": "a@example.com"}}}).Expect(200).JSON(&r)
			if len(r.Invalid) != 1 || r.Invalid[0].ContactID != ca || len(r.Created) != 1 {
				t.Errorf("bulk with A's contact id and email from %s: %+v", who.name, r)
			}
			for _, q := range []string{"", "?search=a%40example.com", "?segment_id=" + sa} {
				for _, got := range ctIDs(e, o+"/contacts"+q) {
					if got == ca {
						t.Errorf("GET %s/contacts%s lists A's contact", o, q)
					}
				}
			}
		})
	}
	if after := snapshot(); after != before {
		t.Errorf("foreign requests changed A's contact:\n%s\n%s", before, after)
	}
	if n := e.Do("GET", inA+"/segments/"+sa, keyA, nil).Expect(200).Map()["contacts_count"]; n != 1.0 {
		t.Errorf("A's segment contacts_count %v, want 1", n)
	}
	// A's own key still reaches everything; B's key cannot even name A's organization.
	e.Do("GET", inA+"/contacts/"+ca, keyB, nil).ExpectError(404, "not_found")
	e.Do("DELETE", inA+"/contacts/"+ca+"/notes/"+na, keyA, nil).Expect(204)
}

func TestContactsPermissions(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	id := ctNamed(e, "Guarded")
	seg := ctSegment(e, e.AdminKey, "c", "Guarded")
	none := e.RoleKey(e.Org.ID, "org:read", "webhooks:write")
	read := e.RoleKey(e.Org.ID, "contacts:read")
	write := e.RoleKey(e.Org.ID, "contacts:write")
	merge := map[string]any{"source_contact_id": id, "target_contact_id": ctNamed(e, "Other")}
	bulk := map[string]any{"channels": []map[string]any{{"email": "p@example.com"}}}

	for _, path := range []string{"/orgs/c/contacts", "/orgs/c/contacts/" + id, "/orgs/c/contacts/" + id + "/notes",
		"/orgs/c/contacts/" + id + "/memories", "/orgs/c/segments", "/orgs/c/segments/" + seg} {
		e.Do("GET", path, none, nil).ExpectError(403, "permission_denied")
		e.Do("GET", path, read, nil).Expect(200)
		e.Do("GET", path, write, nil).Expect(200) // write implies read
	}
	e.Do("POST", "/orgs/c/contacts/bulk/dry", none, bulk).ExpectError(403, "permission_denied")
	e.Do("POST", "/orgs/c/contacts/merge/dry", none, merge).ExpectError(403, "permission_denied")
	// Dry runs only read.
	e.Do("POST", "/orgs/c/contacts/bulk/dry", read, bulk).Expect(200)
	e.Do("POST", "/orgs/c/contacts/merge/dry", read, merge).Expect(200)

	before := e.Count(e.AdminKey, "/orgs/c/contacts")
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/orgs/c/contacts", map[string]any{"name": "Nope"}},
		{"PATCH", "/orgs/c/contacts/" + id, map[string]any{"blocked": true}},
		{"DELETE", "/orgs/c/contacts/" + id, nil},
		{"POST", "/orgs/c/contacts/" + id + "/channels", map[string]any{"type": "custom"}},
		{"POST", "/orgs/c/contacts/" + id + "/notes", map[string]any{"content": "n"}},
		{"POST", "/orgs/c/contacts/" + id + "/memories", map[string]any{"type": "FACT", "importance": 1, "content": "m"}},
		{"POST", "/orgs/c/contacts/merge", merge},
		{"POST", "/orgs/c/contacts/bulk", bulk},
		{"POST", "/orgs/c/segments", map[string]any{"name": "Nope"}},
		{"PATCH", "/orgs/c/segments/" + seg, map[string]any{"name": "Nope"}},
		{"POST", "/orgs/c/segments/" + seg + "/contacts", map[string]any{"contact_ids": []string{id}}},
		{"DELETE", "/orgs/c/segments/" + seg, nil},
	} {
		for name, key := range map[string]string{"no contacts permission": none, "contacts:read": read} {
			if res := e.Do(c.method, c.path, key, c.body); res.Status != 403 || res.ErrorCode() != "permission_denied" {
				t.Errorf("%s %s with %s: %d %s, want 403", c.method, c.path, name, res.Status, res.Body)
			}
		}
	}
	if after := e.Count(e.AdminKey, "/orgs/c/contacts"); after != before {
		t.Errorf("refused requests changed the contacts: %d -> %d", before, after)
	}
	e.Do("POST", "/orgs/c/contacts", write, map[string]any{"name": "Allowed"}).Expect(201)
	e.Do("POST", "/orgs/c/contacts/bulk", write, bulk).Expect(200)
	e.Do("GET", "/orgs/c/contacts", "", nil).ExpectError(401, "unauthenticated")
}
