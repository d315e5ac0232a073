package sqlite

import (
	"testing"

	"wsapi/app"
)

func TestChatCacheVersionsAndLimit(t *testing.T) {
	db := &DB{}
	db.CacheChats(3)
	c := db.chats
	c.Put(1, 10, app.Chat{ID: "chat_1"}, 1)
	if _, ok := c.Get(1, 11); ok {
		t.Fatal("a chat loaded at version 10 was reused at version 11")
	}
	if got, ok := c.Get(1, 10); !ok || got.ID != "chat_1" {
		t.Fatalf("get at the loaded version = %v, %v", got.ID, ok)
	}
	c.Put(1, 11, app.Chat{ID: "chat_1 again"}, 1)
	if got, ok := c.Get(1, 11); !ok || got.ID != "chat_1 again" || c.Len() != 1 {
		t.Fatalf("a newer load did not replace the entry: %v, %v, %d entries", got.ID, ok, c.Len())
	}
	for seq := int64(2); seq <= 4; seq++ {
		c.Put(seq, 1, app.Chat{}, 1)
	}
	if c.Len() != 3 {
		t.Fatalf("%d entries; limit 3", c.Len())
	}
	if _, ok := c.Get(1, 11); ok {
		t.Fatal("the least recently used chat was kept")
	}
	db.CacheChats(0)
	if db.chats != nil {
		t.Fatal("CacheChats(0) left a cache")
	}
}
