package api_test

import (
	neturl "net/url"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

func TestSegmentCRUD(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	created := e.Do("POST", "/orgs/c/segments", e.AdminKey, map[string]any{"name": " Zebra ", "color": "red"}).Expect(201).Map()
	apitest.ExpectShape(t, "segment", created, ctSegmentShape)
	apitest.CheckID(t, created["id"], "seg")
	if created["name"] != "Zebra" || created["color"] != "red" || created["contacts_count"] != 0.0 || created["created_at"] != apitest0 {
		t.Fatalf("created %v", created)
	}
	id := created["id"].(string)
	gray := e.Do("POST", "/orgs/c/segments", e.AdminKey, map[string]any{"name": "Alpha"}).Expect(201).Map()
	if gray["color"] != app.DefaultSegmentColor {
		t.Errorf("default color %v, want %s", gray["color"], app.DefaultSegmentColor)
	}
	for _, color := range app.SegmentColors {
		e.Do("PATCH", "/orgs/c/segments/"+id, e.AdminKey, map[string]any{"color": color}).Expect(200)
	}

	got := e.Do("GET", "/orgs/c/segments/"+id, e.AdminKey, nil).Expect(200).Map()
	apitest.ExpectShape(t, "GET segment", got, ctSegmentShape)
	list := e.Do("GET", "/orgs/c/segments", e.AdminKey, nil).Expect(200)
	if l := list.List(); len(l) != 2 || l[0]["name"] != "Alpha" || l[1]["name"] != "Zebra" || list.Header.Get("pagination-count") != "2" {
		t.Errorf("list %v (count %s), want Alpha then Zebra", l, list.Header.Get("pagination-count"))
	}

	e.Clock.Advance(time.Second)
	patched := e.Do("PATCH", "/orgs/c/segments/"+id, e.AdminKey, map[string]any{"name": "Yak", "color": "red"}).Expect(200).Map()
	if patched["name"] != "Yak" || patched["color"] != "red" || patched["updated_at"] == created["updated_at"] || patched["created_at"] != created["created_at"] {
		t.Errorf("patched %v", patched)
	}
	kept := e.Do("PATCH", "/orgs/c/segments/"+id, e.AdminKey, map[string]any{"color": "blue"}).Expect(200).Map()
	if kept["name"] != "Yak" || kept["color"] != "blue" {
		t.Errorf("a PATCH of color alone %v", kept)
	}

	// Color outside the palette, blank name, unknown field: 400 naming it, nothing changes.
	e.DoInvalid("POST", "/orgs/c/segments", e.AdminKey, map[string]any{"name": "Green-ish", "color": "chartreuse"}).ExpectError(400, "invalid_argument", "color")
	e.DoInvalid("PATCH", "/orgs/c/segments/"+id, e.AdminKey, map[string]any{"color": "chartreuse"}).ExpectError(400, "invalid_argument", "color")
	e.DoInvalid("PATCH", "/orgs/c/segments/"+id, e.AdminKey, map[string]any{"color": "RED"}).ExpectError(400, "invalid_argument", "color")
	e.Do("POST", "/orgs/c/segments", e.AdminKey, map[string]any{"name": " "}).ExpectError(400, "invalid_argument", "name")
	e.DoInvalid("POST", "/orgs/c/segments", e.AdminKey, map[string]any{"color": "red"}).ExpectError(400, "invalid_argument", "name")
	e.DoInvalid("POST", "/orgs/c/segments", e.AdminKey, map[string]any{"name": "x", "icon": "star"}).ExpectError(400, "invalid_argument", "icon")
	if n := e.Count(e.AdminKey, "/orgs/c/segments"); n != 2 {
		t.Errorf("%d segments after rejected creates, want 2", n)
	}
	if got := e.Do("GET", "/orgs/c/segments/"+id, e.AdminKey, nil).Expect(200).Map(); got["color"] != "blue" {
		t.Errorf("a rejected PATCH changed the color to %v", got["color"])
	}

	// Deleting a segment keeps its contacts.
	member := ctContact(e, e.AdminKey, "c", map[string]any{"name": "Member", "segment_ids": []string{id}})["id"].(string)
	e.Do("DELETE", "/orgs/c/segments/"+id, e.AdminKey, nil).Expect(204)
	e.Do("GET", "/orgs/c/segments/"+id, e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("PATCH", "/orgs/c/segments/"+id, e.AdminKey, map[string]any{"name": "x"}).ExpectError(404, "not_found")
	e.Do("DELETE", "/orgs/c/segments/"+id, e.AdminKey, nil).ExpectError(404, "not_found")
	if c := e.Do("GET", "/orgs/c/contacts/"+member, e.AdminKey, nil).Expect(200).Map(); len(c["segments"].([]any)) != 0 {
		t.Errorf("contact still lists the deleted segment: %v", c["segments"])
	}
}

func TestSegmentMembership(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	seg := ctSegment(e, e.AdminKey, "c", "Customers")
	a, b, c := ctNamed(e, "A"), ctNamed(e, "B"), ctNamed(e, "C")
	path := "/orgs/c/segments/" + seg + "/contacts"
	count := func() any {
		return e.Do("GET", "/orgs/c/segments/"+seg, e.AdminKey, nil).Expect(200).Map()["contacts_count"]
	}

	s := e.Do("POST", path, e.AdminKey, map[string]any{"contact_ids": []string{a, b}}).Expect(200).Map()
	apitest.ExpectShape(t, "segment", s, ctSegmentShape)
	if s["contacts_count"] != 2.0 || s["id"] != seg {
		t.Fatalf("after adding two: %v", s)
	}
	// Adding again, also twice in one request, does not double count.
	if s := e.Do("POST", path, e.AdminKey, map[string]any{"contact_ids": []string{a, b, a}}).Expect(200).Map(); s["contacts_count"] != 2.0 {
		t.Errorf("after adding the same again: %v", s)
	}
	// An unknown contact id is 404 and adds nothing, not even the known ones.
	e.Do("POST", path, e.AdminKey, map[string]any{"contact_ids": []string{c, "ct_unknown00000000000000"}}).ExpectError(404, "not_found")
	e.DoInvalid("POST", path, e.AdminKey, map[string]any{"contact_ids": []string{}}).ExpectError(400, "invalid_argument", "contact_ids")
	e.DoInvalid("POST", path, e.AdminKey, map[string]any{}).ExpectError(400, "invalid_argument", "contact_ids")
	e.Do("POST", "/orgs/c/segments/seg_unknown/contacts", e.AdminKey, map[string]any{"contact_ids": []string{c}}).ExpectError(404, "not_found")
	if n := count(); n != 2.0 {
		t.Errorf("contacts_count %v after rejected adds, want 2", n)
	}
	apitest.SameSet(t, "segment_id filter", ctIDs(e, "/orgs/c/contacts?segment_id="+seg), []string{a, b})
	if segs := e.Do("GET", "/orgs/c/contacts/"+a, e.AdminKey, nil).Expect(200).Map()["segments"].([]any); len(segs) != 1 ||
		segs[0].(map[string]any)["id"] != seg || segs[0].(map[string]any)["contacts_count"] != 2.0 {
		t.Errorf("contact's segments %v", segs)
	}

	e.Do("DELETE", path+"/"+a, e.AdminKey, nil).Expect(204)
	e.Do("DELETE", path+"/"+a, e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("DELETE", path+"/"+c, e.AdminKey, nil).ExpectError(404, "not_found")
	if n := count(); n != 1.0 {
		t.Errorf("contacts_count %v after removing one, want 1", n)
	}
	apitest.SameSet(t, "segment_id filter after removal", ctIDs(e, "/orgs/c/contacts?segment_id="+seg), []string{b})
	if n := e.Count(e.AdminKey, "/orgs/c/contacts"); n != 3 {
		t.Errorf("removing from a segment deleted a contact: %d contacts", n)
	}
	if ids := ctIDs(e, "/orgs/c/contacts?segment_id=seg_unknown"); len(ids) != 0 {
		t.Errorf("unknown segment filter found %v", ids)
	}
}

func TestContactListFiltersAndSearch(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	grace := ctNamed(e, "Grace Hopper",
		map[string]any{"type": "email", "email": "grace@navy.example"},
		map[string]any{"type": "sms", "phone": "+1 (555) 010-9999"},
		map[string]any{"type": "telegram", "username": "amazing_grace"})
	e.Clock.Advance(time.Millisecond)
	alan := ctNamed(e, "Alan Turing", map[string]any{"type": "email", "email": "alan@bletchley.example"})
	e.Clock.Advance(time.Millisecond)
	blocked := ctNamed(e, "Blocked Person", map[string]any{"type": "whatsapp", "phone": "+44 7700 900123"})
	e.Clock.Advance(time.Millisecond)
	unsub := ctNamed(e, "Gone Quiet")
	e.Do("PATCH", "/orgs/c/contacts/"+blocked, e.AdminKey, map[string]any{"blocked": true}).Expect(200)
	e.Do("PATCH", "/orgs/c/contacts/"+unsub, e.AdminKey, map[string]any{"unsubscribed": true}).Expect(200)
	all := []string{grace, alan, blocked, unsub}

	// Oldest first, with the count of all matching.
	res := e.Do("GET", "/orgs/c/contacts?take=2&page=2", e.AdminKey, nil).Expect(200)
	if l := res.List(); len(l) != 2 || l[0]["id"] != blocked || l[1]["id"] != unsub || res.Header.Get("pagination-count") != "4" {
		t.Errorf("page 2 of 2: %v, count %s", l, res.Header.Get("pagination-count"))
	}

	for _, c := range []struct {
		query string
		want  []string
	}{
		{"", all},
		{"blocked=true", []string{blocked}},
		{"blocked=false", []string{grace, alan, unsub}},
		{"unsubscribed=true", []string{unsub}},
		{"unsubscribed=false", []string{grace, alan, blocked}},
		{"blocked=false&unsubscribed=false", []string{grace, alan}},
		{"search=hopper", []string{grace}},                            // name, any case
		{"search=GRACE%40NAVY", []string{grace}},                      // channel email, any case
		{"search=bletchley", []string{alan}},                          // channel email
		{"search=5550109999", []string{grace}},                        // phone digits, whatever the punctuation
		{"search=555-010-9999", []string{grace}},                      // punctuated differently
		{"search=" + neturl.QueryEscape("+1 (555)"), []string{grace}}, // the phone as written
		{"search=7700900123", []string{blocked}},                      // phone digits
		{"search=amazing_grace", []string{grace}},                     // username
		{"search=amazingXgrace", nil},                                 // "_" is no wildcard
		{"search=%25", nil},                                           // nor is "%"
		{"search=nobody", nil},
		{"search=person&blocked=true", []string{blocked}},
		{"search=person&blocked=false", nil},
		{"search=grace&unsubscribed=true", nil},
	} {
		t.Run(c.query, func(t *testing.T) {
			e := e.For(t)
			apitest.SameSet(t, c.query, ctIDs(e, "/orgs/c/contacts?"+c.query), c.want)
			if n := e.Count(e.AdminKey, "/orgs/c/contacts?"+c.query); n != len(c.want) {
				t.Errorf("pagination-count %d, want %d", n, len(c.want))
			}
		})
	}
}
