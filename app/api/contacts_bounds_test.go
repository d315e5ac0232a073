package api_test

import (
	"fmt"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

func TestNoteContentBounds(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	id := ctNamed(e, "Noted")
	path := "/orgs/c/contacts/" + id + "/notes"
	post := func(content string) *apitest.Response {
		return e.Do("POST", path, e.AdminKey, map[string]any{"content": content})
	}
	post(strings.Repeat("a", 1000)).Expect(201)
	emoji := post(strings.Repeat("😀", 1000)).Expect(201).Map() // 4000 bytes, 1000 characters
	if emoji["content"] != strings.Repeat("😀", 1000) {
		t.Errorf("emoji note content changed")
	}
	post("é").Expect(201)
	before := e.Count(e.AdminKey, path)
	for name, content := range map[string]string{
		"1001 characters": strings.Repeat("a", 1001),
		"1001 emoji":      strings.Repeat("😀", 1001),
		"empty":           "",
		"only spaces":     "   ",
	} {
		t.Run(name, func(t *testing.T) {
			e.For(t).DoInvalid("POST", path, e.AdminKey, map[string]any{"content": content}).ExpectError(400, "invalid_argument", "content")
		})
	}
	e.DoInvalid("POST", path, e.AdminKey, nil).ExpectError(400, "invalid_argument", "content")
	e.DoInvalid("POST", path, e.AdminKey, map[string]any{"content": 5}).ExpectError(400, "invalid_argument", "content")
	e.DoInvalid("POST", path, e.AdminKey, map[string]any{"content": "x", "pinned": true}).ExpectError(400, "invalid_argument", "pinned")
	if after := e.Count(e.AdminKey, path); after != before || before != 3 {
		t.Errorf("notes %d before the rejected requests, %d after; want 3 and 3", before, after)
	}
}

func TestMemoryBounds(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	id := ctNamed(e, "Remembered")
	path := "/orgs/c/contacts/" + id + "/memories"
	mem := func(typ string, importance any) map[string]any {
		b := map[string]any{"type": typ, "content": "something"}
		if importance != nil {
			b["importance"] = importance
		}
		return b
	}
	for _, imp := range []float64{0, 1.0, 0.5} {
		m := e.Do("POST", path, e.AdminKey, mem("FACT", imp)).Expect(201).Map()
		if m["importance"] != imp {
			t.Errorf("importance %v, want %v", m["importance"], imp)
		}
	}
	for _, typ := range app.MemoryTypes {
		e.Do("POST", path, e.AdminKey, mem(typ, 0.3)).Expect(201)
	}
	before := e.Count(e.AdminKey, path)
	for _, c := range []struct {
		name  string
		body  any
		field string
	}{
		{"importance 1.01", mem("FACT", 1.01), "importance"},
		{"importance -0.01", mem("FACT", -0.01), "importance"},
		{"importance missing", mem("FACT", nil), "importance"},
		{"importance as a string", mem("FACT", "0.5"), "importance"},
		{"unknown type", mem("OPINION", 0.5), "type"},
		{"lower-case type", mem("fact", 0.5), "type"},
		{"empty content", map[string]any{"type": "FACT", "importance": 0.5, "content": ""}, "content"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.For(t).DoInvalid("POST", path, e.AdminKey, c.body).ExpectError(400, "invalid_argument", c.field)
		})
	}
	// Every bad field at once.
	e.DoInvalid("POST", path, e.AdminKey, map[string]any{"type": "X", "importance": 2}).ExpectError(400, "invalid_argument", "type", "importance", "content")
	if after := e.Count(e.AdminKey, path); after != before || before != 7 {
		t.Errorf("memories %d before the rejected requests, %d after; want 7 and 7", before, after)
	}
}

// ctBulkItems makes n distinct valid bulk items.
func ctBulkItems(n int) []map[string]string {
	items := make([]map[string]string, n)
	for i := range items {
		items[i] = map[string]string{"user_id": fmt.Sprintf("u%06d", i)}
	}
	return items
}

func TestBulkBounds(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	segs := make([]string, 11)
	for i := range segs {
		segs[i] = ctSegment(e, e.AdminKey, "c", fmt.Sprintf("s%02d", i))
	}
	ctNamed(e, "Existing")
	const contacts = "/orgs/c/contacts"
	before := e.Count(e.AdminKey, contacts)

	var res app.BulkResult
	e.Do("POST", contacts+"/bulk/dry", e.AdminKey, map[string]any{"channels": ctBulkItems(app.MaxBulkChannels)}).Expect(200).JSON(&res)
	if len(res.Created) != 50000 || len(res.Updated) != 0 || len(res.Invalid) != 0 {
		t.Errorf("50,000 channels: %d created, %d updated, %d invalid", len(res.Created), len(res.Updated), len(res.Invalid))
	}
	over := map[string]any{"channels": ctBulkItems(app.MaxBulkChannels + 1)}
	e.DoInvalid("POST", contacts+"/bulk/dry", e.AdminKey, over).ExpectError(400, "invalid_argument", "channels")
	e.DoInvalid("POST", contacts+"/bulk", e.AdminKey, over).ExpectError(400, "invalid_argument", "channels")

	one := ctBulkItems(1)
	e.Do("POST", contacts+"/bulk/dry", e.AdminKey, map[string]any{"channels": one, "segment_ids": segs[:10]}).Expect(200)
	e.DoInvalid("POST", contacts+"/bulk/dry", e.AdminKey, map[string]any{"channels": one, "segment_ids": segs}).
		ExpectError(400, "invalid_argument", "segment_ids")
	e.DoInvalid("POST", contacts+"/bulk", e.AdminKey, map[string]any{"channels": one, "segment_ids": segs}).
		ExpectError(400, "invalid_argument", "segment_ids")
	unknown := []string{segs[0], "seg_doesNotExist0000000000"}
	e.Do("POST", contacts+"/bulk/dry", e.AdminKey, map[string]any{"channels": one, "segment_ids": unknown}).
		ExpectError(400, "invalid_argument", "segment_ids")
	e.Do("POST", contacts+"/bulk", e.AdminKey, map[string]any{"channels": one, "segment_ids": unknown}).
		ExpectError(400, "invalid_argument", "segment_ids")
	e.DoInvalid("POST", contacts+"/bulk/dry", e.AdminKey, map[string]any{}).ExpectError(400, "invalid_argument", "channels")
	e.DoInvalid("POST", contacts+"/bulk", e.AdminKey, map[string]any{"channels": []map[string]any{{"email": "a@example.com", "avatar": "x"}}}).
		ExpectError(400, "invalid_argument", "channels.avatar")

	if after := e.Count(e.AdminKey, contacts); after != before {
		t.Errorf("contacts %d before the dry and rejected requests, %d after", before, after)
	}
	for _, s := range segs {
		if n := e.Do("GET", "/orgs/c/segments/"+s, e.AdminKey, nil).Expect(200).Map()["contacts_count"]; n != 0.0 {
			t.Errorf("segment %s has %v contacts after dry and rejected requests", s, n)
		}
	}
	// The real import at the bounds: 10 segments.
	e.Do("POST", contacts+"/bulk", e.AdminKey, map[string]any{"channels": one, "segment_ids": segs[:10]}).Expect(200)
	if after := e.Count(e.AdminKey, contacts); after != before+1 {
		t.Errorf("contacts %d after importing one, want %d", after, before+1)
	}
	if n := e.Do("GET", "/orgs/c/segments/"+segs[9], e.AdminKey, nil).Expect(200).Map()["contacts_count"]; n != 1.0 {
		t.Errorf("segment contacts_count %v after the import, want 1", n)
	}
}

func TestContactSearchBound(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	ctNamed(e, "Long handle", map[string]any{"type": "telegram", "username": strings.Repeat("é", 256)})
	// 256 characters (512 bytes) is fine and finds the contact; 257 is a 400.
	if ids := ctIDs(e, "/orgs/c/contacts?search="+strings.Repeat("%C3%A9", 256)); len(ids) != 1 {
		t.Errorf("search of 256 characters found %d contacts, want 1", len(ids))
	}
	e.DoInvalid("GET", "/orgs/c/contacts?search="+strings.Repeat("%C3%A9", 257), e.AdminKey, nil).ExpectError(400, "invalid_argument", "search")
	e.DoInvalid("GET", "/orgs/c/contacts?search="+strings.Repeat("a", 257), e.AdminKey, nil).ExpectError(400, "invalid_argument", "search")
	e.DoInvalid("GET", "/orgs/c/contacts?blocked=maybe", e.AdminKey, nil).ExpectError(400, "invalid_argument", "blocked")
	e.DoInvalid("GET", "/orgs/c/contacts?unsubscribed=2", e.AdminKey, nil).ExpectError(400, "invalid_argument", "unsubscribed")
	e.DoInvalid("GET", "/orgs/c/contacts?take=101", e.AdminKey, nil).ExpectError(400, "invalid_argument", "take")
}

func TestContactInputBounds(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	const path = "/orgs/c/contacts"
	ok := map[string]any{"name": strings.Repeat("é", 255), "channels": []map[string]any{
		{"type": "sms", "phone": "12345"}, {"type": "sms", "phone": "+1 (234) 567-8901-2345-6789"}}}
	e.Do("POST", path, e.AdminKey, ok).Expect(201)
	before := e.Count(e.AdminKey, path)
	for _, c := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"name of 256", map[string]any{"name": strings.Repeat("é", 256)}, "name"},
		{"blank name", map[string]any{"name": "  "}, "name"},
		{"unknown channel type", map[string]any{"name": "x", "channels": []map[string]any{{"type": "pager"}}}, "channels[0].type"},
		{"phone of 4 digits", map[string]any{"name": "x", "channels": []map[string]any{{"type": "sms", "phone": "1234"}}}, "channels[0].phone"},
		{"phone of 21 digits", map[string]any{"name": "x", "channels": []map[string]any{{"type": "sms", "phone": strings.Repeat("1", 21)}}}, "channels[0].phone"},
		{"bad email", map[string]any{"name": "x", "channels": []map[string]any{{"type": "email", "email": "a@"}}}, "channels[0].email"},
		{"unknown segment", map[string]any{"name": "x", "segment_ids": []string{"seg_nope"}}, "segment_ids"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.For(t).DoInvalid("POST", path, e.AdminKey, c.body).ExpectError(400, "invalid_argument", c.field)
		})
	}
	if after := e.Count(e.AdminKey, path); after != before {
		t.Errorf("contacts %d before the rejected requests, %d after", before, after)
	}
}
