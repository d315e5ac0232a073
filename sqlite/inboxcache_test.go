package sqlite

import (
	"fmt"
	"testing"

	"wsapi/app"
)

func chatsN(n int) []app.Chat {
	out := make([]app.Chat, n)
	for i := range out {
		out[i].ID = fmt.Sprintf("chat_%d", i)
	}
	return out
}

func TestInboxCacheAnswersOnlyTheVersionItWasReadAt(t *testing.T) {
	c := newInboxCache(100)
	c.put("k", 7, chatsN(3), 42)
	if _, _, ok := c.get("k", 8); ok {
		t.Fatal("an answer read at version 7 was reused at version 8")
	}
	got, total, ok := c.get("k", 7)
	if !ok || len(got) != 3 || total != 42 {
		t.Fatalf("get at the same version = %d chats, total %d, %v", len(got), total, ok)
	}
	// Callers own their slice: shortening or appending to it leaves the entry whole.
	got[0].ID = "changed"
	got = append(got[:1], app.Chat{ID: "appended"})
	again, _, _ := c.get("k", 7)
	if again[1].ID != "chat_1" {
		t.Fatalf("entry changed through a caller's slice: %v", again[1].ID)
	}
	// An older read never replaces a newer one.
	c.put("k", 9, chatsN(1), 1)
	c.put("k", 8, chatsN(2), 2)
	if _, total, ok := c.get("k", 9); !ok || total != 1 {
		t.Fatalf("the version 9 answer was replaced by an older read (total %d, %v)", total, ok)
	}
}

func TestInboxCacheStaysWithinItsLimit(t *testing.T) {
	c := newInboxCache(25)
	for i := range 10 {
		c.put(fmt.Sprint("k", i), 1, chatsN(4), 4) // 5 each with the entry itself
	}
	if c.held > 25 || len(c.entries) != 5 || c.lru.Len() != 5 {
		t.Fatalf("held %d (limit 25), %d entries, %d in order", c.held, len(c.entries), c.lru.Len())
	}
	for i := range 5 {
		if _, _, ok := c.get(fmt.Sprint("k", i), 1); ok {
			t.Fatalf("k%d, among the least recently used, is still there", i)
		}
	}
	// Using an entry keeps it: k5 was read last, so k6 goes first.
	c.get("k5", 1)
	c.put("new", 1, chatsN(4), 4)
	if _, _, ok := c.get("k5", 1); !ok {
		t.Fatal("the entry read last was evicted")
	}
	if _, _, ok := c.get("k6", 1); ok {
		t.Fatal("the least recently used entry was kept")
	}
	// An answer larger than the whole cache is not kept, and evicts nothing.
	c.put("huge", 1, chatsN(25), 25)
	if _, _, ok := c.get("huge", 1); ok || len(c.entries) != 5 {
		t.Fatalf("an answer larger than the limit was kept (%d entries)", len(c.entries))
	}
}

func TestInboxKeysTellQuestionsApart(t *testing.T) {
	after := &app.InboxCursor{UpdatedAt: "2026-01-01T00:00:00.000Z", ID: "chat_1"}
	keys := map[string]string{
		"base":        inboxKey("w", []any{"org", "a"}, nil, 0, 101),
		"other arg":   inboxKey("w", []any{"org", "b"}, nil, 0, 101),
		"int vs text": inboxKey("w", []any{"org", 3}, nil, 0, 101),
		"text 3":      inboxKey("w", []any{"org", "3"}, nil, 0, 101),
		"joined args": inboxKey("w", []any{"org\x00string:\"a\""}, nil, 0, 101),
		"cursor":      inboxKey("w", []any{"org", "a"}, after, 0, 101),
		"offset":      inboxKey("w", []any{"org", "a"}, nil, 100, 101),
		"limit":       inboxKey("w", []any{"org", "a"}, nil, 0, 21),
		"count":       inboxKey("w", []any{"org", "a"}, nil, -1, -1),
		"other where": inboxKey("w2", []any{"org", "a"}, nil, 0, 101),
	}
	seen := map[string]string{}
	for name, k := range keys {
		if other, dup := seen[k]; dup {
			t.Fatalf("%q and %q share a cache key", name, other)
		}
		seen[k] = name
	}
}
