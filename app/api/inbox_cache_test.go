package api_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/cli"
)

// The inbox cache (sqlite/inboxcache.go) reuses an answer while the inbox version of
// migration 00010 is unchanged. Every test here caches an answer (asks twice), makes one kind
// of write, and asks again: the write must show. The comment of each case names the triggers
// that turn its write into a new version; inbox_cache_more_test.go isolates them one by one
// with single SQL statements. Helpers start with ic.

// icPage is one inbox answer: its chats in order and its pagination-count.
type icPage struct {
	chats []map[string]any
	count int
}

// icGet asks the inbox of the bootstrap organization (query without the leading ?).
func icGet(e *apitest.Env, query string) icPage {
	e.T.Helper()
	res := e.Do("GET", "/orgs/c/inbox?"+query, e.AdminKey, nil).Expect(200)
	n, err := strconv.Atoi(res.Header.Get("pagination-count"))
	if err != nil {
		e.T.Fatalf("inbox %q: pagination-count %q", query, res.Header.Get("pagination-count"))
	}
	return icPage{chats: res.List(), count: n}
}

// icPrime asks each query twice, so that its answer is in the cache.
func icPrime(e *apitest.Env, queries ...string) {
	e.T.Helper()
	for _, q := range queries {
		icGet(e, q)
		icGet(e, q)
	}
}

func (p icPage) ids() []string {
	ids := []string{}
	for _, c := range p.chats {
		ids = append(ids, c["id"].(string))
	}
	return ids
}

// chat is the chat with id in the answer, failing the test when it is not there.
func (p icPage) chat(t *testing.T, id string) map[string]any {
	t.Helper()
	for _, c := range p.chats {
		if c["id"] == id {
			return c
		}
	}
	t.Fatalf("chat %s is not in the inbox %v", id, p.ids())
	return nil
}

// icExpect fails unless the answer holds exactly want, in order, and counts len(want).
func icExpect(t *testing.T, what string, p icPage, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	chSameList(t, what, p.ids(), want)
	if p.count != len(want) {
		t.Errorf("%s: pagination-count %d, want %d", what, p.count, len(want))
	}
}

// icContactOf is the nested channel of the chat's CONTACT member.
func icContactOf(t *testing.T, chat map[string]any) map[string]any {
	t.Helper()
	cm := chMember(chat["members"].([]any), "CONTACT")
	if cm == nil {
		t.Fatalf("chat %v has no CONTACT member", chat["id"])
	}
	return chObj(cm, "contact_channel")
}

// icStep moves the manual clock so that the next write sorts after the previous ones.
func icStep(e *apitest.Env) { e.Clock.Advance(time.Second) }

func TestInboxCacheAPIWrites(t *testing.T) {
	t.Parallel()
	k := func(e *apitest.Env) string { return e.AdminKey }

	t.Run("new message", func(t *testing.T) { // messages insert (and chats update, last_message_id)
		t.Parallel()
		e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
		a := chConversation(e, k(e), "c", "Ann")["id"].(string)
		chMsg(e, k(e), "c", a, "user", "hello")
		icStep(e)
		b := chConversation(e, k(e), "c", "Ben")["id"].(string)
		chMsg(e, k(e), "c", b, "user", "hi")
		icPrime(e, "", "search=zebra")
		icExpect(t, "before", icGet(e, ""), b, a)
		icStep(e)
		m := chMsg(e, k(e), "c", a, "user", "a zebra crossing")
		p := icGet(e, "")
		icExpect(t, "after a message in the older chat", p, a, b)
		if got := chObj(p.chat(t, a), "last_message")["id"]; got != m["id"] {
			t.Errorf("last_message %v, want the new message %v", got, m["id"])
		}
		icExpect(t, "search for a word of the new message", icGet(e, "search=zebra"), a)
	})

	t.Run("older message edited", func(t *testing.T) { // messages update only: not the last one
		t.Parallel()
		e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
		a := chConversation(e, k(e), "c", "Ann")["id"].(string)
		old := chMsg(e, k(e), "c", a, "user", "alpha")["id"].(string)
		chMsg(e, k(e), "c", a, "user", "beta")
		icPrime(e, "search=gamma", "search=alpha")
		e.Do("PATCH", "/orgs/c/chats/"+a+"/messages/"+old, k(e), map[string]any{"messages": chText("user", "gamma")}).Expect(200)
		icExpect(t, "search gamma", icGet(e, "search=gamma"), a)
		icExpect(t, "search alpha", icGet(e, "search=alpha"))
	})

	t.Run("chat patch", func(t *testing.T) { // chats update
		t.Parallel()
		e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
		agent := e.Member(k(e), "c", "Agent Smith", "MEMBER")
		a := chConversation(e, k(e), "c", "Ann")["id"].(string)
		icStep(e)
		b := chConversation(e, k(e), "c", "Ben")["id"].(string)
		chPatch(e, k(e), "c", b, map[string]any{"csat_score": 4})
		queries := []string{"", "state=CLOSED", "filter=UNASSIGNED", "csat_max=2", "filter=RESOLVED", "search=renamed"}
		icPrime(e, queries...)
		icExpect(t, "UNASSIGNED before", icGet(e, "filter=UNASSIGNED"), b, a)
		icExpect(t, "CLOSED before", icGet(e, "state=CLOSED"))
		icStep(e)
		chPatch(e, k(e), "c", a, map[string]any{"state": "CLOSED", "assigned_user_id": agent.ID, "title": "Renamed chat",
			"pinned": true, "csat_score": 1})
		p := icGet(e, "")
		icExpect(t, "order after the patch", p, a, b)
		c := p.chat(t, a)
		st := chState(c)
		if c["title"] != "Renamed chat" || c["pinned"] != true || st["state"] != "CLOSED" || st["csat_score"] != 1.0 ||
			chObj(st, "assigned_user")["id"] != agent.ID {
			t.Errorf("patched fields not in the inbox: title %v pinned %v state %v csat %v assigned %v",
				c["title"], c["pinned"], st["state"], st["csat_score"], st["assigned_user"])
		}
		icExpect(t, "state=CLOSED", icGet(e, "state=CLOSED"), a)
		icExpect(t, "filter=RESOLVED", icGet(e, "filter=RESOLVED"), a)
		icExpect(t, "filter=UNASSIGNED", icGet(e, "filter=UNASSIGNED"), b)
		icExpect(t, "csat_max=2", icGet(e, "csat_max=2"), a)
		icExpect(t, "search by the new title", icGet(e, "search=renamed"), a)
		// Undo some of it: the filters follow back.
		icPrime(e, queries...)
		chPatch(e, k(e), "c", a, map[string]any{"state": "OPEN", "assigned_user_id": nil, "pinned": false, "csat_score": nil})
		icExpect(t, "state=CLOSED after reopening", icGet(e, "state=CLOSED"))
		icExpect(t, "filter=UNASSIGNED after unassigning", icGet(e, "filter=UNASSIGNED"), a, b)
		icExpect(t, "csat_max=2 after clearing the score", icGet(e, "csat_max=2"))
		if c := icGet(e, "").chat(t, a); c["pinned"] != false || chState(c)["assigned_user"] != nil {
			t.Errorf("after undo: pinned %v, assigned_user %v", c["pinned"], chState(c)["assigned_user"])
		}
	})

	t.Run("assignee renamed", func(t *testing.T) { // members update of name, email, avatar
		t.Parallel()
		e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
		agent := e.Member(k(e), "c", "Agent Old", "MEMBER")
		a := chConversation(e, k(e), "c", "Ann")["id"].(string)
		chPatch(e, k(e), "c", a, map[string]any{"assigned_user_id": agent.ID})
		icPrime(e, "")
		e.Do("PATCH", "/orgs/c/members/"+agent.ID, k(e), map[string]any{"name": "Agent New", "email": "agent.new@example.com",
			"avatar": "https://example.com/a.png"}).Expect(200)
		c := icGet(e, "").chat(t, a)
		au := chObj(c, "state", "assigned_user")
		if au["name"] != "Agent New" || au["email"] != "agent.new@example.com" || au["avatar"] != "https://example.com/a.png" {
			t.Errorf("state.assigned_user %v: want the new name, email and avatar", au)
		}
		for _, m := range c["members"].([]any) {
			if u := chObj(m, "user"); u["id"] == agent.ID && u["name"] != "Agent New" {
				t.Errorf("members[].user %v: want the new name", u)
			}
		}
	})

	t.Run("contact renamed", func(t *testing.T) { // contacts update
		t.Parallel()
		e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
		chat := chConversation(e, k(e), "c", "Carl Old")
		a, contact := chat["id"].(string), chObj(icContactOf(t, chat), "contact")["id"].(string)
		icPrime(e, "", "search=zoltan", "search=carl")
		e.Do("PATCH", "/orgs/c/contacts/"+contact, k(e), map[string]any{"name": "Zoltan New"}).Expect(200)
		if got := chObj(icContactOf(t, icGet(e, "").chat(t, a)), "contact")["name"]; got != "Zoltan New" {
			t.Errorf("contact name in the inbox %v, want Zoltan New", got)
		}
		icExpect(t, "search by the new name", icGet(e, "search=zoltan"), a)
		icExpect(t, "search by the old name", icGet(e, "search=carl"))
	})

	t.Run("contact blocked and channel filled", func(t *testing.T) { // contacts update; channels update
		t.Parallel()
		e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
		ct := chContact(e, k(e), "c", "Dora", map[string]any{"type": "email", "email": "dora@example.com"})
		a := chChat(e, k(e), "c", map[string]any{"contact_id": ct["id"]})["id"].(string)
		icPrime(e, "")
		e.Do("PATCH", "/orgs/c/contacts/"+ct["id"].(string), k(e), map[string]any{"blocked": true}).Expect(200)
		if got := chObj(icContactOf(t, icGet(e, "").chat(t, a)), "contact")["blocked"]; got != true {
			t.Errorf("contact.blocked in the inbox %v, want true", got)
		}
		// The bulk import fills the channel's empty name (it also touches the contact).
		icPrime(e, "", "search=quimby")
		e.Do("POST", "/orgs/c/contacts/bulk", k(e), map[string]any{"channels": []map[string]any{
			{"email": "dora@example.com", "name": "Dora Quimby"}}}).Expect(200)
		if got := icContactOf(t, icGet(e, "").chat(t, a))["name"]; got != "Dora Quimby" {
			t.Errorf("channel name in the inbox %v, want Dora Quimby", got)
		}
		icExpect(t, "search by the channel's new name", icGet(e, "search=quimby"), a)
	})

	t.Run("reactions", func(t *testing.T) { // reactions insert, update (upsert), delete
		t.Parallel()
		e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
		a := chConversation(e, k(e), "c", "Ann")["id"].(string)
		msg := chMsg(e, k(e), "c", a, "admin", "react to me")["id"].(string)
		path := "/orgs/c/chats/" + a + "/messages/" + msg + "/reaction"
		reactions := func() []any {
			t.Helper()
			return chObj(icGet(e, "").chat(t, a), "last_message")["reactions"].([]any)
		}
		for _, emoji := range []string{"👍", "🎉"} {
			icPrime(e, "")
			e.Do("PUT", path, k(e), map[string]any{"emoji": emoji}).Expect(200)
			if r := reactions(); len(r) != 1 || chObj(r[0])["emoji"] != emoji || chObj(r[0])["user_id"] != e.Owner.ID {
				t.Errorf("after PUT %s: last_message.reactions %v", emoji, r)
			}
		}
		icPrime(e, "")
		e.Do("DELETE", path, k(e), nil).Expect(204)
		if r := reactions(); len(r) != 0 {
			t.Errorf("after DELETE: last_message.reactions %v", r)
		}
	})

	t.Run("assistant renamed, disabled, deleted", func(t *testing.T) { // assistants update
		t.Parallel()
		e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
		asst := chAssistant(e, k(e), "c", map[string]any{"name": "Helper"})["id"].(string)
		a := chChat(e, k(e), "c", map[string]any{"assistant_id": asst})["id"].(string)
		path := "/orgs/c/assistants/" + asst
		steps := []struct {
			method string
			body   map[string]any
			field  string
			want   any
		}{
			{"PATCH", map[string]any{"name": "Helper Two"}, "name", "Helper Two"},
			{"PATCH", map[string]any{"enabled": false}, "enabled", false},
			{"DELETE", nil, "deleted", true},
		}
		for _, s := range steps {
			icPrime(e, "", "assistant_id="+asst)
			if s.method == "DELETE" {
				e.Do("DELETE", path, k(e), nil).Expect(204)
			} else {
				e.Do("PATCH", path, k(e), s.body).Expect(200)
			}
			if got := chObj(icGet(e, "").chat(t, a), "state", "assistant")[s.field]; got != s.want {
				t.Errorf("after %s %v: state.assistant.%s %v, want %v", s.method, s.body, s.field, got, s.want)
			}
			if got := chObj(icGet(e, "assistant_id="+asst).chat(t, a), "state", "assistant")[s.field]; got != s.want {
				t.Errorf("assistant_id filter after %s %v: state.assistant.%s %v, want %v", s.method, s.body, s.field, got, s.want)
			}
		}
	})

	t.Run("segment membership", func(t *testing.T) { // segment_members insert, delete
		t.Parallel()
		e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
		chat := chConversation(e, k(e), "c", "Sam")
		a := chat["id"].(string)
		contact := chObj(icContactOf(t, chat), "contact")["id"].(string)
		seg := ctSegment(e, k(e), "c", "VIP")
		q := "segment_id=" + seg
		icPrime(e, q)
		e.Do("POST", "/orgs/c/segments/"+seg+"/contacts", k(e), map[string]any{"contact_ids": []string{contact}}).Expect(200)
		icExpect(t, "after adding the contact", icGet(e, q), a)
		icPrime(e, q)
		e.Do("DELETE", "/orgs/c/segments/"+seg+"/contacts/"+contact, k(e), nil).Expect(204)
		icExpect(t, "after removing the contact", icGet(e, q))
	})

	t.Run("segment membership by merge", func(t *testing.T) { // the source's segments move to the target
		t.Parallel()
		e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
		chat := chConversation(e, k(e), "c", "Target")
		a := chat["id"].(string)
		target := chObj(icContactOf(t, chat), "contact")["id"].(string)
		source := chContact(e, k(e), "c", "Source", map[string]any{"type": "email", "email": "source@example.com"})["id"].(string)
		seg := ctSegment(e, k(e), "c", "VIP")
		e.Do("POST", "/orgs/c/segments/"+seg+"/contacts", k(e), map[string]any{"contact_ids": []string{source}}).Expect(200)
		q := "segment_id=" + seg
		icPrime(e, q)
		icExpect(t, "before the merge", icGet(e, q))
		e.Do("POST", "/orgs/c/contacts/merge", k(e), map[string]any{"source_contact_id": source, "target_contact_id": target}).Expect(200)
		icExpect(t, "after merging a member of the segment into the chat's contact", icGet(e, q), a)
	})

	t.Run("segment deleted", func(t *testing.T) { // segments delete: segment_members go by the cascade
		t.Parallel()
		e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
		chat := chConversation(e, k(e), "c", "Sam")
		contact := chObj(icContactOf(t, chat), "contact")["id"].(string)
		seg := ctSegment(e, k(e), "c", "VIP")
		e.Do("POST", "/orgs/c/segments/"+seg+"/contacts", k(e), map[string]any{"contact_ids": []string{contact}}).Expect(200)
		q := "segment_id=" + seg
		icPrime(e, q)
		icExpect(t, "before", icGet(e, q), chat["id"].(string))
		e.Do("DELETE", "/orgs/c/segments/"+seg, k(e), nil).Expect(204)
		icExpect(t, "the segment is gone, so are its members", icGet(e, q))
	})

	t.Run("chat deleted", func(t *testing.T) { // chats delete
		t.Parallel()
		e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
		a := chConversation(e, k(e), "c", "Ann")["id"].(string)
		icStep(e)
		b := chConversation(e, k(e), "c", "Ben")["id"].(string)
		icPrime(e, "", "search=ann")
		e.Do("DELETE", "/orgs/c/chats/"+a, k(e), nil).Expect(204)
		icExpect(t, "inbox", icGet(e, ""), b)
		icExpect(t, "search", icGet(e, "search=ann"))
	})

	t.Run("assignee deleted", func(t *testing.T) { // members delete (assigned_user_id set null)
		t.Parallel()
		e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
		agent := e.Member(k(e), "c", "Agent Gone", "MEMBER")
		a := chConversation(e, k(e), "c", "Ann")["id"].(string)
		chPatch(e, k(e), "c", a, map[string]any{"assigned_user_id": agent.ID})
		icPrime(e, "", "filter=UNASSIGNED")
		e.Do("DELETE", "/orgs/c/members/"+agent.ID, k(e), nil).Expect(204)
		c := icGet(e, "").chat(t, a)
		if au, ok := chState(c)["assigned_user"]; ok {
			t.Errorf("state.assigned_user %v after the member was deleted", au)
		}
		for _, m := range c["members"].([]any) {
			if chObj(m, "user")["id"] == agent.ID {
				t.Errorf("the deleted member is still a chat member")
			}
		}
		icExpect(t, "filter=UNASSIGNED", icGet(e, "filter=UNASSIGNED"), a)
	})

	t.Run("temporary chat purged by the janitor", func(t *testing.T) { // chats delete
		t.Parallel()
		e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
		kept := chConversation(e, k(e), "c", "Ann")["id"].(string)
		icStep(e)
		temp := chChat(e, k(e), "c", map[string]any{"temporary": true})["id"].(string)
		icPrime(e, "")
		icExpect(t, "before", icGet(e, ""), temp, kept)
		e.Clock.Set(apitest.Start.Add(25 * time.Hour))
		e.Runtime.Janitor.RunOnce(context.Background())
		e.Do("GET", "/orgs/c/chats/"+temp, k(e), nil).ExpectError(404, "not_found")
		icExpect(t, "after the janitor", icGet(e, ""), kept)
	})
}

// TestInboxCacheOff: with db.inbox_cache_chats 0 the inbox reads the file every time.
func TestInboxCacheOff(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, func(c *cli.Config) {
		c.HTTP.RateLimitPerMinute = 1 << 20
		c.DB.InboxCacheChats = 0
	})
	a := chConversation(e, e.AdminKey, "c", "Ann")["id"].(string)
	icStep(e)
	b := chConversation(e, e.AdminKey, "c", "Ben")["id"].(string)
	icExpect(t, "list", icGet(e, ""), b, a)
	p := icGet(e, "take=1")
	if p.count != 2 || len(p.chats) != 1 {
		t.Errorf("take=1: %d chats, count %d", len(p.chats), p.count)
	}
	icStep(e)
	chPatch(e, e.AdminKey, "c", a, map[string]any{"title": "moved"})
	icExpect(t, "after a patch", icGet(e, ""), a, b)
	icExpect(t, "search", icGet(e, "search=moved"), a)
}
