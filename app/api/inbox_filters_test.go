package api_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
)

// ibxChat is what the inbox filters look at, read back from the chat itself.
type ibxChat struct {
	id, updatedAt                                   string
	assistantID, aiIntegration, conversation        string
	contactID, integration, status, state, assignee string
	inSegment, ai, unread                           bool
	csat                                            int // -1: no score
}

// ibxFixture is a small inbox: chats of every state, status, channel, assignee and score.
type ibxFixture struct {
	e                *apitest.Env
	chats            map[string]string // name -> id
	model            []ibxChat
	keys             map[string]string // "owner", "m1", "m2" -> key
	members          map[string]string // same names -> member id
	a1, a2, seg      string
	alice, bob, dave string
}

func ibxSetup(t *testing.T) *ibxFixture {
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	f := &ibxFixture{e: e, chats: map[string]string{}, keys: map[string]string{"owner": e.AdminKey},
		members: map[string]string{"owner": e.Owner.ID}}
	for _, n := range []string{"m1", "m2"} {
		m := e.Member(e.AdminKey, "c", "Agent "+n, "MEMBER")
		f.members[n], f.keys[n] = m.ID, e.Key(e.AdminKey, "c", m.ID)
	}
	f.a1 = chAssistant(e, e.AdminKey, "c", map[string]any{"name": "A1"})["id"].(string)
	f.a2 = chAssistant(e, e.AdminKey, "c", map[string]any{"name": "A2"})["id"].(string)
	alice := chContact(e, e.AdminKey, "c", "Alice Martin", map[string]any{"type": "email", "email": "alice@example.com"})
	bob := chContact(e, e.AdminKey, "c", "Bob Stone", map[string]any{"type": "whatsapp", "phone": "+33 6 12 34 56 78"})
	carol := chContact(e, e.AdminKey, "c", "Carol Dupré", map[string]any{"type": "telegram", "username": "carol_t"})
	dave := chContact(e, e.AdminKey, "c", "Dave Null", map[string]any{"type": "sms", "phone": "+1 202 555 0100"})
	f.alice, f.bob, f.dave = alice["id"].(string), bob["id"].(string), dave["id"].(string)
	f.seg = e.Do("POST", "/orgs/c/segments", e.AdminKey, map[string]any{"name": "VIP"}).Expect(201).Map()["id"].(string)
	e.Do("POST", "/orgs/c/segments/"+f.seg+"/contacts", e.AdminKey, map[string]any{"contact_ids": []string{f.alice, f.dave}}).Expect(200)

	mk := func(name string, body map[string]any) string {
		e.Clock.Advance(time.Second)
		id := chChat(e, e.AdminKey, "c", body)["id"].(string)
		f.chats[name] = id
		return id
	}
	msg := func(id, role, status, text string) {
		e.Clock.Advance(time.Second)
		e.Do("POST", "/orgs/c/chats/"+id+"/messages", e.AdminKey, map[string]any{"role": role, "status": status,
			"messages": chText(role, text)}).Expect(201)
	}
	patch := func(id string, body map[string]any) {
		e.Clock.Advance(time.Second)
		chPatch(e, e.AdminKey, "c", id, body)
	}

	c1 := mk("c1", map[string]any{"contact_id": f.alice, "assistant_id": f.a1, "assistant_integration_id": "ai_web",
		"conversation_id": "conv_1", "title": "Billing issue"})
	msg(c1, "user", "COMPLETED", "my invoice is wrong")
	patch(c1, map[string]any{"csat_score": 2})
	c2 := mk("c2", map[string]any{"contact_id": f.bob, "assistant_id": f.a2, "assistant_integration_id": "ai_wa"})
	msg(c2, "admin", "COMPLETED", "shipping update")
	patch(c2, map[string]any{"state": "SNOOZED", "assigned_user_id": f.members["m1"], "csat_score": 5})
	c3 := mk("c3", map[string]any{"contact_id": carol["id"], "title": "Café order"})
	msg(c3, "user", "COMPLETED", "refund please")
	patch(c3, map[string]any{"state": "CLOSED", "assigned_user_id": f.members["m2"], "csat_score": 1})
	e.Do("POST", "/orgs/c/chats/"+c3+"/read", e.AdminKey, nil).Expect(200)
	c4 := mk("c4", map[string]any{"title": "team notes", "conversation_id": "conv_1"})
	msg(c4, "admin", "COMPLETED", "quarterly invoice review")
	c5 := mk("c5", map[string]any{"contact_id": f.dave, "assistant_id": f.a1, "assistant_integration_id": "ai_web"})
	msg(c5, "user", "RUNNING", "hello there")
	patch(c5, map[string]any{"ai_enabled": false})
	c6 := mk("c6", map[string]any{"contact_id": f.alice, "assistant_id": f.a2})
	msg(c6, "assistant", "FAILED", "sorry, something failed")
	patch(c6, map[string]any{"state": "CLOSED", "csat_score": 0})
	c7 := mk("c7", map[string]any{"contact_id": f.bob})
	msg(c7, "user", "CANCELED", "never mind")
	patch(c7, map[string]any{"assigned_user_id": f.members["m1"], "ai_enabled": true, "csat_score": 3})
	// c8 shares c7's updated_at: the id breaks the tie.
	f.chats["c8"] = chChat(e, e.AdminKey, "c", map[string]any{"contact_id": f.dave, "title": "same moment"})["id"].(string)

	for _, id := range f.chats {
		f.model = append(f.model, ibxRead(e, id, f.seg, map[string]bool{f.alice: true, f.dave: true}))
	}
	return f
}

// ibxRead derives the filter values of a chat from its own JSON.
func ibxRead(e *apitest.Env, id, seg string, inSeg map[string]bool) ibxChat {
	c := chGetChat(e, e.AdminKey, "c", id)
	st := chState(c)
	s := func(v any) string { x, _ := v.(string); return x }
	m := ibxChat{id: id, updatedAt: s(c["updated_at"]), assistantID: s(st["assistant_id"]), aiIntegration: s(st["assistant_integration_id"]),
		conversation: s(st["conversation_id"]), integration: s(st["integration_id"]), status: s(c["status"]), state: s(st["state"]),
		ai: st["ai_enabled"] == true, unread: st["admin_unseen_count"].(float64) > 0, csat: -1}
	if cm := chMember(c["members"].([]any), "CONTACT"); cm != nil {
		m.contactID = s(chObj(cm, "contact_channel", "contact")["id"])
	}
	m.inSegment = inSeg[m.contactID]
	if au := chObj(st, "assigned_user"); au != nil {
		m.assignee = s(au["id"])
	}
	if v, ok := st["csat_score"].(float64); ok {
		m.csat = int(v)
	}
	return m
}

// ibxParam is one query parameter with a value, and what it keeps.
type ibxParam struct {
	name, value string
	keep        func(c ibxChat, me string) bool
}

func (f *ibxFixture) params() []ibxParam {
	eq := func(get func(ibxChat) string, v string) func(ibxChat, string) bool {
		return func(c ibxChat, _ string) bool { return get(c) == v }
	}
	all := func(ibxChat, string) bool { return true }
	ps := []ibxParam{
		{"assistant_id", f.a1, eq(func(c ibxChat) string { return c.assistantID }, f.a1)},
		{"assistant_id", f.a2, eq(func(c ibxChat) string { return c.assistantID }, f.a2)},
		{"assistant_integration_id", "ai_web", eq(func(c ibxChat) string { return c.aiIntegration }, "ai_web")},
		{"conversation_id", "conv_1", eq(func(c ibxChat) string { return c.conversation }, "conv_1")},
		{"contact_id", f.alice, eq(func(c ibxChat) string { return c.contactID }, f.alice)},
		{"contact_id", f.bob, eq(func(c ibxChat) string { return c.contactID }, f.bob)},
		{"segment_id", f.seg, func(c ibxChat, _ string) bool { return c.inSegment }},
		{"status", "ALL", all}, {"state", "ALL", all}, {"ai_status", "ALL", all}, {"filter", "ALL", all}, {"csat_max", "0", all},
		{"ai_status", "ENABLED", func(c ibxChat, _ string) bool { return c.ai }},
		{"ai_status", "DISABLED", func(c ibxChat, _ string) bool { return !c.ai }},
		{"filter", "UNREAD", func(c ibxChat, _ string) bool { return c.unread }},
		{"filter", "UNRESOLVED", func(c ibxChat, _ string) bool { return c.state == "OPEN" || c.state == "SNOOZED" }},
		{"filter", "RESOLVED", func(c ibxChat, _ string) bool { return c.state == "CLOSED" }},
		{"filter", "ASSIGNED_TO_ME", func(c ibxChat, me string) bool { return c.assignee == me }},
		{"filter", "UNASSIGNED", func(c ibxChat, _ string) bool { return c.assignee == "" }},
	}
	for _, v := range []string{"internal", "email", "whatsapp", "telegram", "sms", "slack"} {
		ps = append(ps, ibxParam{"integration_id", v, eq(func(c ibxChat) string { return c.integration }, v)})
	}
	for _, v := range []string{"RUNNING", "COMPLETED", "FAILED", "CANCELED"} {
		ps = append(ps, ibxParam{"status", v, eq(func(c ibxChat) string { return c.status }, v)})
	}
	for _, v := range []string{"OPEN", "SNOOZED", "CLOSED"} {
		ps = append(ps, ibxParam{"state", v, eq(func(c ibxChat) string { return c.state }, v)})
	}
	for n := 1; n <= 5; n++ {
		ps = append(ps, ibxParam{"csat_max", fmt.Sprint(n), func(c ibxChat, _ string) bool { return c.csat >= 0 && c.csat <= n }})
	}
	return ps
}

// expect is the inbox the model predicts for the params, as key who, in inbox order.
func (f *ibxFixture) expect(who string, ps ...ibxParam) []string {
	var keep []ibxChat
	for _, c := range f.model {
		ok := true
		for _, p := range ps {
			ok = ok && p.keep(c, f.members[who])
		}
		if ok {
			keep = append(keep, c)
		}
	}
	sort.Slice(keep, func(i, j int) bool {
		if keep[i].updatedAt != keep[j].updatedAt {
			return keep[i].updatedAt > keep[j].updatedAt
		}
		return keep[i].id > keep[j].id
	})
	ids := []string{}
	for _, c := range keep {
		ids = append(ids, c.id)
	}
	return ids
}

func (f *ibxFixture) check(t *testing.T, who string, ps ...ibxParam) {
	t.Helper()
	var kv []string
	for _, p := range ps {
		kv = append(kv, p.name, p.value)
	}
	q := chQ(kv...)
	want := f.expect(who, ps...)
	res := f.e.Do("GET", "/orgs/c/inbox?"+q, f.keys[who], nil).Expect(200)
	got := []string{}
	for _, c := range res.List() {
		got = append(got, c["id"].(string))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s as %s:\n got %v\nwant %v", q, who, f.names(got), f.names(want))
	}
	if res.Header.Get("pagination-count") != fmt.Sprint(len(want)) {
		t.Errorf("%s: pagination-count %s, want %d", q, res.Header.Get("pagination-count"), len(want))
	}
}

func (f *ibxFixture) names(ids []string) []string {
	out := []string{}
	for _, id := range ids {
		for n, cid := range f.chats {
			if cid == id {
				out = append(out, n)
			}
		}
	}
	return out
}

// TestInboxFilters runs every filter value alone and every pair of different parameters,
// against what the chats say about themselves.
func TestInboxFilters(t *testing.T) {
	t.Parallel()
	f := ibxSetup(t)
	f.e = f.e.For(t)
	f.check(t, "owner")
	if len(f.expect("owner")) != 8 {
		t.Fatalf("fixture: %d chats", len(f.model))
	}
	ps := f.params()
	for _, p := range ps {
		f.check(t, "owner", p)
	}
	pairs := 0
	for i, p := range ps {
		for _, q := range ps[i+1:] {
			if p.name != q.name {
				f.check(t, "owner", p, q)
				pairs++
			}
		}
	}
	// Three at once, and the same query for each member (ASSIGNED_TO_ME differs per key).
	for _, who := range []string{"owner", "m1", "m2"} {
		for _, p := range ps {
			if p.name != "filter" { // one filter value per query
				f.check(t, who, ps[17], p)
			}
		}
		f.check(t, who, ps[17], ibxParam{"state", "OPEN", func(c ibxChat, _ string) bool { return c.state == "OPEN" }},
			ibxParam{"csat_max", "4", func(c ibxChat, _ string) bool { return c.csat >= 0 && c.csat <= 4 }})
	}
	if ps[17].value != "ASSIGNED_TO_ME" || pairs < 300 {
		t.Fatalf("params table changed: %v, %d pairs", ps[17], pairs)
	}
	// Spot checks that the model itself is what the fixture meant.
	chSameList(t, "m1's chats", chInbox(f.e, f.keys["m1"], "filter=ASSIGNED_TO_ME"), []string{f.chats["c7"], f.chats["c2"]})
	chSameList(t, "m2's chats", chInbox(f.e, f.keys["m2"], "filter=ASSIGNED_TO_ME"), []string{f.chats["c3"]})
	if got := chInbox(f.e, f.keys["owner"], "filter=ASSIGNED_TO_ME"); len(got) != 0 {
		t.Errorf("owner's chats %v", got)
	}
	apitest.SameSet(t, "csat_max=1", chInbox(f.e, f.e.AdminKey, "csat_max=1"), []string{f.chats["c3"], f.chats["c6"]})
	apitest.SameSet(t, "status=RUNNING", chInbox(f.e, f.e.AdminKey, "status=RUNNING"), []string{f.chats["c5"]})
	apitest.SameSet(t, "UNREAD", chInbox(f.e, f.e.AdminKey, "filter=UNREAD"), []string{f.chats["c1"], f.chats["c5"], f.chats["c7"]})
}

func TestInboxFilterValidation(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	for _, c := range []struct{ query, field string }{
		{"integration_id=fax", "integration_id"}, {"integration_id=EMAIL", "integration_id"},
		{"status=DONE", "status"}, {"status=all", "status"}, {"state=PENDING", "state"}, {"ai_status=ON", "ai_status"},
		{"filter=MINE", "filter"}, {"csat_max=6", "csat_max"}, {"csat_max=-1", "csat_max"}, {"csat_max=x", "csat_max"},
		{"csat_max=2.5", "csat_max"}, {"take=0", "take"}, {"take=101", "take"}, {"page=0", "page"}, {"next=%25%25", "next"},
		{"search=" + strings.Repeat("a", 257), "search"}, {"search=" + strings.Repeat("é", 257), "search"},
	} {
		e.DoInvalid("GET", "/orgs/c/inbox?"+c.query, e.AdminKey, nil).ExpectError(400, "invalid_argument", c.field)
	}
	// Every bad parameter at once.
	e.DoInvalid("GET", "/orgs/c/inbox?status=x&state=y&filter=z", e.AdminKey, nil).ExpectError(400, "invalid_argument", "status", "state", "filter")
	e.Do("GET", "/orgs/c/inbox?search="+strings.Repeat("é", 256), e.AdminKey, nil).Expect(200)
}
