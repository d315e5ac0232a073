package sqlite

import (
	"testing"

	"wsapi/app"
)

func TestChatCacheVersionsAndLimit(t *testing.T) {
	db := &DB{}
	db.CacheChats(3)
	c := db.chats
	c.put(1, 10, app.Chat{ID: "chat_1"})
	if _, ok := c.get(1, 11); ok {
		t.Fatal("a chat loaded at version 10 was reused at version 11")
	}
	if got, ok := c.get(1, 10); !ok || got.ID != "chat_1" {
		t.Fatalf("get at the loaded version = %v, %v", got.ID, ok)
	}
	c.put(1, 11, app.Chat{ID: "chat_1 again"})
	if got, ok := c.get(1, 11); !ok || got.ID != "chat_1 again" || c.lru.Len() != 1 {
		t.Fatalf("a newer load did not replace the entry: %v, %v, %d entries", got.ID, ok, c.lru.Len())
	}
	for seq := int64(2); seq <= 4; seq++ {
		c.put(seq, 1, app.Chat{})
	}
	if len(c.entries) != 3 || c.lru.Len() != 3 {
		t.Fatalf("%d entries, %d in order; limit 3", len(c.entries), c.lru.Len())
	}
	if _, ok := c.get(1, 11); ok {
		t.Fatal("the least recently used chat was kept")
	}
	db.CacheChats(0)
	if db.chats != nil {
		t.Fatal("CacheChats(0) left a cache")
	}
}
