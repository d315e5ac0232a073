package api_test

import (
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// ctMergeFixture is a source contact with two channels, two notes, three memories, two
// segments and a chat, and a target with one channel and one of those segments.
type ctMergeFixture struct {
	src, dst, segOnlySrc, segBoth, chat string
}

func ctMergeSetup(e *apitest.Env) ctMergeFixture {
	e.T.Helper()
	f := ctMergeFixture{segOnlySrc: ctSegment(e, e.AdminKey, "c", "Only source"), segBoth: ctSegment(e, e.AdminKey, "c", "Both")}
	f.src = ctContact(e, e.AdminKey, "c", map[string]any{"name": "Duplicate",
		"channels":    []map[string]any{{"type": "email", "email": "dup@example.com"}, {"type": "sms", "phone": "+1 555 000 2222"}},
		"segment_ids": []string{f.segOnlySrc, f.segBoth}})["id"].(string)
	f.dst = ctContact(e, e.AdminKey, "c", map[string]any{"name": "Original",
		"channels":    []map[string]any{{"type": "whatsapp", "phone": "+1 555 000 3333"}},
		"segment_ids": []string{f.segBoth}})["id"].(string)
	for _, n := range []string{"first", "second"} {
		e.Do("POST", "/orgs/c/contacts/"+f.src+"/notes", e.AdminKey, map[string]any{"content": n}).Expect(201)
	}
	for _, imp := range []float64{0.1, 0.5, 0.9} {
		e.Do("POST", "/orgs/c/contacts/"+f.src+"/memories", e.AdminKey, map[string]any{"type": "FACT", "importance": imp, "content": "m"}).Expect(201)
	}
	e.Do("POST", "/orgs/c/contacts/"+f.dst+"/notes", e.AdminKey, map[string]any{"content": "target's own"}).Expect(201)
	f.chat = e.Do("POST", "/orgs/c/chats", e.AdminKey, map[string]any{"contact_id": f.src}).Expect(201).Map()["id"].(string)
	return f
}

func (f ctMergeFixture) body() map[string]any {
	return map[string]any{"source_contact_id": f.src, "target_contact_id": f.dst}
}

// ctSnapshot is what a merge changes, read through the API.
func ctSnapshot(e *apitest.Env, f ctMergeFixture) map[string]any {
	e.T.Helper()
	count := func(id string) any {
		return e.Do("GET", "/orgs/c/segments/"+id, e.AdminKey, nil).Expect(200).Map()["contacts_count"]
	}
	return map[string]any{
		"src":          len(e.Do("GET", "/orgs/c/contacts/"+f.src, e.AdminKey, nil).Expect(200).Map()["channels"].([]any)),
		"dst":          len(e.Do("GET", "/orgs/c/contacts/"+f.dst, e.AdminKey, nil).Expect(200).Map()["channels"].([]any)),
		"src notes":    e.Count(e.AdminKey, "/orgs/c/contacts/"+f.src+"/notes"),
		"dst notes":    e.Count(e.AdminKey, "/orgs/c/contacts/"+f.dst+"/notes"),
		"src memories": e.Count(e.AdminKey, "/orgs/c/contacts/"+f.src+"/memories"),
		"contacts":     e.Count(e.AdminKey, "/orgs/c/contacts"),
		"seg only src": count(f.segOnlySrc),
		"seg both":     count(f.segBoth),
	}
}

func TestMergeMovesChildrenAndDeletesSource(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	f := ctMergeSetup(e)
	before := ctSnapshot(e, f)

	var p app.MergePreview
	e.Do("POST", "/orgs/c/contacts/merge/dry", e.AdminKey, f.body()).Expect(200).JSON(&p)
	want := app.MergeCounts{Channels: 2, Notes: 2, Memories: 3, Segments: 1, Chats: 1}
	if p.Moves != want {
		t.Errorf("dry moves %+v, want %+v", p.Moves, want)
	}
	if p.Contact.ID != f.dst || len(p.Contact.Channels) != 3 || len(p.Contact.Segments) != 2 {
		t.Errorf("dry contact %+v", p.Contact)
	}
	raw := e.Do("POST", "/orgs/c/contacts/merge/dry", e.AdminKey, f.body()).Expect(200).Map()
	apitest.ExpectShape(t, "preview", raw, map[string]string{"contact": "object", "moves": "object"})
	apitest.ExpectShape(t, "preview.contact", raw["contact"].(map[string]any), ctContactShape)
	apitest.ExpectShape(t, "preview.moves", raw["moves"].(map[string]any), map[string]string{
		"channels": "number", "notes": "number", "memories": "number", "segments": "number", "chats": "number"})
	if after := ctSnapshot(e, f); !ctEqual(before, after) {
		t.Fatalf("the dry run wrote: %v -> %v", before, after)
	}

	c := e.Do("POST", "/orgs/c/contacts/merge", e.AdminKey, f.body()).Expect(200).Map()
	apitest.ExpectShape(t, "merged", c, ctContactShape)
	if c["id"] != f.dst || c["name"] != "Original" || len(c["channels"].([]any)) != 3 || len(c["segments"].([]any)) != 2 {
		t.Fatalf("merged contact %v", c)
	}
	e.Do("GET", "/orgs/c/contacts/"+f.src, e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("POST", "/orgs/c/contacts/merge", e.AdminKey, f.body()).ExpectError(404, "not_found")
	if n := e.Count(e.AdminKey, "/orgs/c/contacts/"+f.dst+"/notes"); n != 3 {
		t.Errorf("target has %d notes, want 3", n)
	}
	if n := e.Count(e.AdminKey, "/orgs/c/contacts/"+f.dst+"/memories"); n != 3 {
		t.Errorf("target has %d memories, want 3", n)
	}
	for _, m := range e.Do("GET", "/orgs/c/contacts/"+f.dst+"/memories", e.AdminKey, nil).Expect(200).List() {
		if m["contact_id"] != f.dst {
			t.Errorf("moved memory %v", m)
		}
	}
	for seg, n := range map[string]float64{f.segOnlySrc: 1, f.segBoth: 1} {
		if got := e.Do("GET", "/orgs/c/segments/"+seg, e.AdminKey, nil).Expect(200).Map()["contacts_count"]; got != n {
			t.Errorf("segment %s contacts_count %v, want %v", seg, got, n)
		}
	}
	if ids := ctIDs(e, "/orgs/c/contacts?segment_id="+f.segOnlySrc); len(ids) != 1 || ids[0] != f.dst {
		t.Errorf("members of the source's segment %v, want the target", ids)
	}
	// The chat moved with its contact instead of going with the source.
	e.Do("GET", "/orgs/c/chats/"+f.chat, e.AdminKey, nil).Expect(200)
	e.Do("DELETE", "/orgs/c/contacts/"+f.dst, e.AdminKey, nil).Expect(204)
	e.Do("GET", "/orgs/c/chats/"+f.chat, e.AdminKey, nil).ExpectError(404, "not_found")
	if n := e.Count(e.AdminKey, "/orgs/c/contacts"); n != before["contacts"].(int)-2 {
		t.Errorf("contacts %d after the merge and the delete, want %d", n, before["contacts"].(int)-2)
	}
}

func ctEqual(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestMergeKeepsOptOuts(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	src := ctNamed(e, "Opted out")
	dst := ctNamed(e, "Subscribed")
	e.Clock.Advance(time.Minute)
	unsubAt := app.At(e.Clock.Now()).String()
	e.Do("PATCH", "/orgs/c/contacts/"+src, e.AdminKey, map[string]any{"unsubscribed": true, "unsubscribe_reason": "unsubscribe_link",
		"unsubscribe_feedback": "no thanks"}).Expect(200)
	e.Clock.Advance(time.Minute)
	blockedAt := app.At(e.Clock.Now()).String()
	e.Do("PATCH", "/orgs/c/contacts/"+src, e.AdminKey, map[string]any{"blocked": true}).Expect(200)
	e.Clock.Advance(time.Minute)

	// The endpoint exists from here on: it sees the merge's events only.
	rcv := apitest.NewReceiver(t)
	e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked, app.EventContactUnsubscribed)
	body := map[string]any{"source_contact_id": src, "target_contact_id": dst}

	p := e.Do("POST", "/orgs/c/contacts/merge/dry", e.AdminKey, body).Expect(200).Map()["contact"].(map[string]any)
	if p["unsubscribed"] != true || p["blocked"] != true {
		t.Errorf("dry merge contact %v", p)
	}
	rcv.Quiet(t, 0, 300*time.Millisecond)
	if got := e.Do("GET", "/orgs/c/contacts/"+dst, e.AdminKey, nil).Expect(200).Map(); got["unsubscribed"] != false || got["blocked"] != false {
		t.Fatalf("the dry merge changed the target: %v", got)
	}
	e.Do("GET", "/orgs/c/contacts/"+src, e.AdminKey, nil).Expect(200)

	c := e.Do("POST", "/orgs/c/contacts/merge", e.AdminKey, body).Expect(200).Map()
	if c["unsubscribed"] != true || c["unsubscribed_at"] != unsubAt || c["unsubscribe_reason"] != "unsubscribe_link" ||
		c["unsubscribe_feedback"] != "no thanks" || c["blocked"] != true || c["blocked_at"] != blockedAt {
		t.Fatalf("merged contact %v; want the source's opt-outs (unsubscribed %s, blocked %s)", c, unsubAt, blockedAt)
	}
	rcv.Wait(t, 2, 5*time.Second)
	types := []string{}
	for _, env := range rcv.Envelopes(t) {
		d := env["data"].(map[string]any)
		if d["id"] != dst || d["unsubscribed"] != true || d["blocked"] != true || d["unsubscribe_reason"] != "unsubscribe_link" {
			t.Errorf("event data %v", d)
		}
		types = append(types, env["type"].(string))
	}
	apitest.SameSet(t, "merge events", types, []string{app.EventContactBlocked, app.EventContactUnsubscribed})
	rcv.Quiet(t, 2, 200*time.Millisecond)
}

func TestMergeKeepsEarliestOptOutWithoutNewEvent(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	src := ctNamed(e, "Early")
	dst := ctNamed(e, "Late")
	e.Clock.Advance(time.Minute)
	early := app.At(e.Clock.Now()).String()
	e.Do("PATCH", "/orgs/c/contacts/"+src, e.AdminKey, map[string]any{"unsubscribed": true, "unsubscribe_reason": "bounce", "blocked": true}).Expect(200)
	e.Clock.Advance(time.Hour)
	late := e.Do("PATCH", "/orgs/c/contacts/"+dst, e.AdminKey, map[string]any{"unsubscribed": true, "unsubscribe_reason": "complaint"}).Expect(200).Map()
	rcv := apitest.NewReceiver(t)
	e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked, app.EventContactUnsubscribed)

	c := e.Do("POST", "/orgs/c/contacts/merge", e.AdminKey, map[string]any{"source_contact_id": src, "target_contact_id": dst}).Expect(200).Map()
	if c["unsubscribed_at"] != early || c["unsubscribe_reason"] != "bounce" || late["unsubscribed_at"] == early {
		t.Errorf("merged %v; want the earlier opt-out (%s, bounce)", c, early)
	}
	if c["blocked"] != true || c["blocked_at"] != early {
		t.Errorf("merged %v; want blocked at %s", c, early)
	}
	// The target was already unsubscribed: only contact.blocked fires.
	env := rcv.WaitEnvelope(t, 1)
	if env["type"] != app.EventContactBlocked || env["data"].(map[string]any)["id"] != dst {
		t.Errorf("envelope %v", env)
	}
	rcv.Quiet(t, 1, 300*time.Millisecond)

	// A target that is opted out keeps it when the source is not.
	plain := ctNamed(e, "Plain")
	c = e.Do("POST", "/orgs/c/contacts/merge", e.AdminKey, map[string]any{"source_contact_id": plain, "target_contact_id": dst}).Expect(200).Map()
	if c["unsubscribed"] != true || c["unsubscribe_reason"] != "bounce" || c["blocked"] != true {
		t.Errorf("merging a plain contact in lost the target's opt-outs: %v", c)
	}
	rcv.Quiet(t, 1, 200*time.Millisecond)
}

func TestMergeErrors(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	a, b := ctNamed(e, "A"), ctNamed(e, "B")
	other, otherKey := e.OrgWithAdmin("Other")
	foreign := ctContact(e, otherKey, other.ID, map[string]any{"name": "Theirs"})["id"].(string)
	for _, path := range []string{"/orgs/c/contacts/merge", "/orgs/c/contacts/merge/dry"} {
		t.Run(path, func(t *testing.T) {
			e := e.For(t)
			e.Do("POST", path, e.AdminKey, map[string]any{"source_contact_id": a, "target_contact_id": a}).
				ExpectError(400, "invalid_argument", "target_contact_id")
			e.DoInvalid("POST", path, e.AdminKey, map[string]any{}).ExpectError(400, "invalid_argument", "source_contact_id", "target_contact_id")
			e.Do("POST", path, e.AdminKey, map[string]any{"source_contact_id": foreign, "target_contact_id": b}).ExpectError(404, "not_found")
			e.Do("POST", path, e.AdminKey, map[string]any{"source_contact_id": a, "target_contact_id": foreign}).ExpectError(404, "not_found")
			e.Do("POST", path, e.AdminKey, map[string]any{"source_contact_id": a, "target_contact_id": "ct_nope"}).ExpectError(404, "not_found")
			e.DoInvalid("POST", path, e.AdminKey, map[string]any{"source_contact_id": a, "target_contact_id": b, "x": 1}).ExpectError(400, "invalid_argument", "x")
		})
	}
	for _, id := range []string{a, b} {
		e.Do("GET", "/orgs/c/contacts/"+id, e.AdminKey, nil).Expect(200)
	}
	e.Do("GET", "/orgs/"+other.ID+"/contacts/"+foreign, otherKey, nil).Expect(200)
}
