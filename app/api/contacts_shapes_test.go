package api_test

import (
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

func TestContactJSONShape(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	seg := e.Do("POST", "/orgs/c/segments", e.AdminKey, map[string]any{"name": "VIP", "color": "red"}).Expect(201).Map()
	apitest.ExpectShape(t, "segment", seg, ctSegmentShape)
	if seg["color"] != "red" || seg["contacts_count"] != 0.0 {
		t.Fatalf("new segment %v", seg)
	}

	c := ctContact(e, e.AdminKey, "c", map[string]any{
		"name": "  Ada Lovelace ",
		"channels": []map[string]any{
			{"type": "email", "email": "ada@example.com", "name": "Ada", "platform_data": map[string]any{"crm": map[string]any{"id": 7}}},
			{"type": "whatsapp", "phone": "+44 20 7946 0958", "country": "GB", "language": "en"},
		},
		"segment_ids": []string{seg["id"].(string)},
	})
	apitest.ExpectShape(t, "contact", c, ctContactShape)
	apitest.CheckID(t, c["id"], "ct")
	if c["name"] != "Ada Lovelace" || c["blocked"] != false || c["unsubscribed"] != false || c["is_admin"] != false {
		t.Errorf("contact %v", c)
	}
	for _, f := range []string{"blocked_at", "unsubscribed_at", "unsubscribe_reason", "unsubscribe_feedback"} {
		if c[f] != nil {
			t.Errorf("%s = %v on a new contact, want null", f, c[f])
		}
	}
	if c["created_at"] != apitest0 || c["updated_at"] != apitest0 {
		t.Errorf("timestamps %v / %v, want the clock's %s", c["created_at"], c["updated_at"], apitest0)
	}

	chs := c["channels"].([]any)
	if len(chs) != 2 {
		t.Fatalf("channels %v", chs)
	}
	email, wa := chs[0].(map[string]any), chs[1].(map[string]any)
	apitest.ExpectShape(t, "channel", email, ctChannelShape)
	apitest.ExpectShape(t, "channel", wa, ctChannelShape)
	apitest.CheckID(t, email["id"], "ch")
	if email["type"] != "email" || email["email"] != "ada@example.com" || email["link"] != "mailto:ada@example.com" || email["phone"] != "" {
		t.Errorf("email channel %v", email)
	}
	if pd := email["platform_data"].(map[string]any); pd["crm"].(map[string]any)["id"] != 7.0 {
		t.Errorf("platform_data %v", pd)
	}
	if wa["link"] != "https://wa.me/442079460958" || wa["country"] != "GB" || len(wa["platform_data"].(map[string]any)) != 0 {
		t.Errorf("whatsapp channel %v (platform_data must be {} when not given)", wa)
	}

	segs := c["segments"].([]any)
	if len(segs) != 1 {
		t.Fatalf("segments %v", segs)
	}
	s0 := segs[0].(map[string]any)
	apitest.ExpectShape(t, "contact.segments[0]", s0, ctSegmentShape)
	if s0["id"] != seg["id"] || s0["contacts_count"] != 1.0 {
		t.Errorf("contact segment %v", s0)
	}

	// GET and the list answer the same object.
	id := c["id"].(string)
	got := e.Do("GET", "/orgs/c/contacts/"+id, e.AdminKey, nil).Expect(200).Map()
	apitest.ExpectShape(t, "GET contact", got, ctContactShape)
	if len(got["channels"].([]any)) != 2 || len(got["segments"].([]any)) != 1 {
		t.Errorf("GET %v", got)
	}
	list := e.Do("GET", "/orgs/c/contacts", e.AdminKey, nil).Expect(200).List()
	if len(list) != 1 {
		t.Fatalf("list %v", list)
	}
	apitest.ExpectShape(t, "listed contact", list[0], ctContactShape)

	// A contact without channels or segments answers empty arrays, never null.
	bare := ctContact(e, e.AdminKey, "c", map[string]any{"name": "Bare"})
	if apitest.JSONKind(bare["channels"]) != "array" || apitest.JSONKind(bare["segments"]) != "array" {
		t.Errorf("bare contact %v", bare)
	}

	// POST /contacts/{id}/channels answers one Channel.
	e.Clock.Advance(time.Second)
	ch := e.Do("POST", "/orgs/c/contacts/"+id+"/channels", e.AdminKey, map[string]any{"type": "telegram", "username": "ada_l"}).Expect(201).Map()
	apitest.ExpectShape(t, "added channel", ch, ctChannelShape)
	if ch["link"] != "https://t.me/ada_l" || ch["type"] != "telegram" {
		t.Errorf("added channel %v", ch)
	}
	got = e.Do("GET", "/orgs/c/contacts/"+id, e.AdminKey, nil).Expect(200).Map()
	if n := len(got["channels"].([]any)); n != 3 || got["updated_at"] == got["created_at"] {
		t.Errorf("after adding a channel: %d channels, updated_at %v", n, got["updated_at"])
	}
	e.DoInvalid("POST", "/orgs/c/contacts/"+id+"/channels", e.AdminKey, map[string]any{"type": "fax"}).ExpectError(400, "invalid_argument", "type")
	e.DoInvalid("POST", "/orgs/c/contacts/"+id+"/channels", e.AdminKey, map[string]any{"type": "email", "email": "nope"}).
		ExpectError(400, "invalid_argument", "email")
}

// apitest0 is the manual clock's start in the API's form.
var apitest0 = app.At(apitest.Start).String()

func TestNoteAndMemoryJSONShape(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	var author app.Member
	e.Do("POST", "/orgs/c/members", e.AdminKey, map[string]any{"name": "Grace", "email": "grace@example.com",
		"avatar": "https://example.com/grace.png"}).Expect(201).JSON(&author)
	key := e.Key(e.AdminKey, "c", author.ID)
	id := ctNamed(e, "Someone")

	n := e.Do("POST", "/orgs/c/contacts/"+id+"/notes", key, map[string]any{"content": "Prefers calls"}).Expect(201).Map()
	apitest.ExpectShape(t, "note", n, ctNoteShape)
	apitest.CheckID(t, n["id"], "note")
	apitest.ExpectShape(t, "note.user", n["user"].(map[string]any), map[string]string{"id": "string", "name": "string", "avatar": "string"})
	wantUser := map[string]any{"id": author.ID, "name": "Grace", "avatar": "https://example.com/grace.png"}
	for k, v := range wantUser {
		if n["user"].(map[string]any)[k] != v {
			t.Errorf("note.user %v, want %v", n["user"], wantUser)
		}
	}
	if n["contact_id"] != id || n["content"] != "Prefers calls" {
		t.Errorf("note %v", n)
	}
	listed := e.Do("GET", "/orgs/c/contacts/"+id+"/notes", e.AdminKey, nil).Expect(200).List()
	if len(listed) != 1 {
		t.Fatalf("notes %v", listed)
	}
	apitest.ExpectShape(t, "listed note", listed[0], ctNoteShape)
	for k, v := range wantUser {
		if listed[0]["user"].(map[string]any)[k] != v {
			t.Errorf("listed note.user %v, want %v", listed[0]["user"], wantUser)
		}
	}

	m := e.Do("POST", "/orgs/c/contacts/"+id+"/memories", key, map[string]any{"type": "PREFERENCE", "importance": 0.75,
		"content": "likes tea"}).Expect(201).Map()
	apitest.ExpectShape(t, "memory", m, ctMemoryShape)
	apitest.CheckID(t, m["id"], "cmem")
	if m["user_id"] != author.ID || m["contact_id"] != id || m["type"] != "PREFERENCE" || m["importance"] != 0.75 || m["content"] != "likes tea" {
		t.Errorf("memory %v", m)
	}
	ml := e.Do("GET", "/orgs/c/contacts/"+id+"/memories", e.AdminKey, nil).Expect(200)
	if l := ml.List(); len(l) != 1 || l[0]["id"] != m["id"] {
		t.Fatalf("memories %v", l)
	} else {
		apitest.ExpectShape(t, "listed memory", l[0], ctMemoryShape)
	}
	if ml.Header.Get("pagination-next") != "" || ml.Header.Get("pagination-count") != "1" {
		t.Errorf("memories headers %v", ml.Header)
	}

	// Delete note and memory; a second delete is 404.
	e.Do("DELETE", "/orgs/c/contacts/"+id+"/notes/"+n["id"].(string), key, nil).Expect(204)
	e.Do("DELETE", "/orgs/c/contacts/"+id+"/notes/"+n["id"].(string), key, nil).ExpectError(404, "not_found")
	e.Do("DELETE", "/orgs/c/contacts/"+id+"/memories/"+m["id"].(string), key, nil).Expect(204)
	e.Do("DELETE", "/orgs/c/contacts/"+id+"/memories/"+m["id"].(string), key, nil).ExpectError(404, "not_found")
	if e.Count(e.AdminKey, "/orgs/c/contacts/"+id+"/notes") != 0 || e.Count(e.AdminKey, "/orgs/c/contacts/"+id+"/memories") != 0 {
		t.Errorf("note or memory still listed after delete")
	}
}

func TestContactDeleteRemovesChildren(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	db := ctDB(t, e)
	seg := ctSegment(e, e.AdminKey, "c", "Newsletter")
	gone := ctContact(e, e.AdminKey, "c", map[string]any{"name": "Leaving",
		"channels":    []map[string]any{{"type": "email", "email": "leaving@example.com"}, {"type": "sms", "phone": "+1 555 000 1111"}},
		"segment_ids": []string{seg}})["id"].(string)
	stays := ctContact(e, e.AdminKey, "c", map[string]any{"name": "Staying", "segment_ids": []string{seg}})["id"].(string)
	for _, id := range []string{gone, stays} {
		e.Do("POST", "/orgs/c/contacts/"+id+"/notes", e.AdminKey, map[string]any{"content": "n"}).Expect(201)
		e.Do("POST", "/orgs/c/contacts/"+id+"/memories", e.AdminKey, map[string]any{"type": "FACT", "importance": 0.5, "content": "m"}).Expect(201)
	}
	if n := e.Do("GET", "/orgs/c/segments/"+seg, e.AdminKey, nil).Expect(200).Map()["contacts_count"]; n != 2.0 {
		t.Fatalf("contacts_count %v, want 2", n)
	}
	tables := []string{"contact_channels", "contact_notes", "contact_memories", "segment_members"}
	for _, tb := range tables {
		if ctRows(t, db, tb, gone) == 0 {
			t.Fatalf("setup: no %s rows", tb)
		}
	}

	e.Do("DELETE", "/orgs/c/contacts/"+gone, e.AdminKey, nil).Expect(204)
	e.Do("GET", "/orgs/c/contacts/"+gone, e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("DELETE", "/orgs/c/contacts/"+gone, e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("GET", "/orgs/c/contacts/"+gone+"/notes", e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("GET", "/orgs/c/contacts/"+gone+"/memories", e.AdminKey, nil).ExpectError(404, "not_found")
	if n := e.Do("GET", "/orgs/c/segments/"+seg, e.AdminKey, nil).Expect(200).Map()["contacts_count"]; n != 1.0 {
		t.Errorf("contacts_count after delete %v, want 1", n)
	}
	for _, tb := range tables {
		if n := ctRows(t, db, tb, gone); n != 0 {
			t.Errorf("%d %s rows left for the deleted contact", n, tb)
		}
	}
	// Its channels no longer match: the same email in a bulk dry run is a new contact.
	var res app.BulkResult
	e.Do("POST", "/orgs/c/contacts/bulk/dry", e.AdminKey, map[string]any{"channels": []map[string]any{
		{"email": "LEAVING@example.com"}, {"phone": "15550001111"}}}).Expect(200).JSON(&res)
	if len(res.Created) != 2 || len(res.Updated) != 0 {
		t.Errorf("dry run after delete %+v, want both created", res)
	}
	// The other contact keeps everything.
	if e.Count(e.AdminKey, "/orgs/c/contacts/"+stays+"/notes") != 1 || e.Count(e.AdminKey, "/orgs/c/contacts/"+stays+"/memories") != 1 {
		t.Errorf("the other contact lost its children")
	}
}
