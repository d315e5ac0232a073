package app

import (
	"fmt"
	"testing"
)

func chatsN(n int) List[Chat] {
	l := List[Chat]{Items: make([]Chat, n), Total: n}
	for i := range l.Items {
		l.Items[i].ID = fmt.Sprintf("chat_%d", i)
	}
	return l
}

func TestInboxCacheAnswersOnlyTheVersionItWasReadAt(t *testing.T) {
	c := newInboxCache(100)
	c.put("k", 7, chatsN(3))
	if _, ok := c.get("k", 8); ok {
		t.Fatal("an answer read at version 7 was reused at version 8")
	}
	got, ok := c.get("k", 7)
	if !ok || len(got.Items) != 3 || got.Total != 3 {
		t.Fatalf("get at the same version = %d chats, total %d, %v", len(got.Items), got.Total, ok)
	}
	// An append to a caller's list copies instead of writing into the entry.
	grown := append(got.Items, Chat{ID: "appended"})
	if &grown[0] == &got.Items[0] {
		t.Fatal("an append to a cached list wrote into the entry's array")
	}
	// The last read stored is the one kept, whatever its version.
	c.put("k", 9, chatsN(1))
	c.put("k", 8, chatsN(2))
	if _, ok := c.get("k", 9); ok {
		t.Fatal("the version 9 answer is still there after the key was stored again")
	}
	if l, ok := c.get("k", 8); !ok || l.Total != 2 {
		t.Fatalf("the answer stored last is not kept (total %d, %v)", l.Total, ok)
	}
}

func TestInboxCacheStaysWithinItsLimit(t *testing.T) {
	c := newInboxCache(25)
	for i := range 10 {
		c.put(fmt.Sprint("k", i), 1, chatsN(4)) // 5 each with the entry itself
	}
	if c.answers.Held() > 25 || c.answers.Len() != 5 {
		t.Fatalf("held %d (limit 25), %d entries", c.answers.Held(), c.answers.Len())
	}
	for i := range 5 {
		if _, ok := c.get(fmt.Sprint("k", i), 1); ok {
			t.Fatalf("k%d, among the least recently used, is still there", i)
		}
	}
	// Using an entry keeps it: k5 was read last, so k6 goes first.
	c.get("k5", 1)
	c.put("new", 1, chatsN(4))
	if _, ok := c.get("k5", 1); !ok {
		t.Fatal("the entry read last was evicted")
	}
	if _, ok := c.get("k6", 1); ok {
		t.Fatal("the least recently used entry was kept")
	}
	// Replacing an entry accounts for the difference.
	c.put("new", 2, chatsN(1))
	if c.answers.Held() != 5*5-3 {
		t.Fatalf("held %d after shrinking an entry, want 22", c.answers.Held())
	}
	// An answer larger than the whole cache is not kept, and evicts nothing.
	c.put("huge", 1, chatsN(25))
	if _, ok := c.get("huge", 1); ok || c.answers.Len() != 5 {
		t.Fatalf("an answer larger than the limit was kept (%d entries)", c.answers.Len())
	}
}

func TestInboxKeysTellQuestionsApart(t *testing.T) {
	base := InboxFilter{Search: "a", State: "OPEN", MemberID: "mem_1"}
	with := func(f func(*InboxFilter)) InboxFilter {
		x := base
		f(&x)
		return x
	}
	keys := map[string]string{
		"base":            inboxKey("org_1", base, "|0|100"),
		"other org":       inboxKey("org_2", base, "|0|100"),
		"other search":    inboxKey("org_1", with(func(f *InboxFilter) { f.Search = "b" }), "|0|100"),
		"moved value":     inboxKey("org_1", with(func(f *InboxFilter) { f.Search, f.AssistantID = "", "a" }), "|0|100"),
		"joined values":   inboxKey("org_1", with(func(f *InboxFilter) { f.Search, f.State = `a"OPEN`, "" }), "|0|100"),
		"csat":            inboxKey("org_1", with(func(f *InboxFilter) { f.CSATMax = 3 }), "|0|100"),
		"assigned to me":  inboxKey("org_1", with(func(f *InboxFilter) { f.Filter = "ASSIGNED_TO_ME" }), "|0|100"),
		"assigned to you": inboxKey("org_1", with(func(f *InboxFilter) { f.Filter, f.MemberID = "ASSIGNED_TO_ME", "mem_2" }), "|0|100"),
		"other window":    inboxKey("org_1", base, "|100|100"),
		"count":           inboxKey("org_1", base, ""),
	}
	seen := map[string]string{}
	for name, k := range keys {
		if other, dup := seen[k]; dup {
			t.Fatalf("%q and %q share a cache key", name, other)
		}
		seen[k] = name
	}
	// The member matters only to ASSIGNED_TO_ME: other views are shared by every member.
	if inboxKey("org_1", base, "") != inboxKey("org_1", with(func(f *InboxFilter) { f.MemberID = "mem_2" }), "") {
		t.Fatal("two members asking for the same view use two entries")
	}
}
