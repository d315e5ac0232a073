package sqlite

import (
	"container/list"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/singleflight"

	"wsapi/app"
)

// inboxCache keeps recent inbox answers (a page of chats and the list's count, or a count
// alone, shared by the pages of a cursor walk) under the
// version of the data they were read from (migration 00010). Inbox views are asked for again
// and again by every agent's screen while little changes; an answer is reused only while
// nothing that could change it has been written, so it is never stale.
type inboxCache struct {
	mu      sync.Mutex
	limit   int // chats held across all entries, an entry counting one more
	held    int
	entries map[string]*list.Element
	lru     *list.List // of *inboxEntry, most recently used first
	flight  singleflight.Group
}

type inboxEntry struct {
	key     string
	version int64
	chats   []app.Chat
	total   int
}

func newInboxCache(limit int) *inboxCache {
	return &inboxCache{limit: limit, entries: map[string]*list.Element{}, lru: list.New()}
}

// get answers the entry for key if it was read at version.
func (c *inboxCache) get(key string, version int64) ([]app.Chat, int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, 0, false
	}
	e := el.Value.(*inboxEntry)
	if e.version != version {
		return nil, 0, false
	}
	c.lru.MoveToFront(el)
	// A copy of the slice: callers may shorten or append to theirs. The chats themselves are
	// shared and only ever encoded.
	return append([]app.Chat(nil), e.chats...), e.total, true
}

// put stores an answer read at version, unless a newer one is already there.
func (c *inboxCache) put(key string, version int64, chats []app.Chat, total int) {
	if len(chats) >= c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		e := el.Value.(*inboxEntry)
		if e.version > version {
			return
		}
		c.held -= len(e.chats)
		e.version, e.chats, e.total = version, chats, total
		c.held += len(chats)
		c.lru.MoveToFront(el)
	} else {
		c.entries[key] = c.lru.PushFront(&inboxEntry{key: key, version: version, chats: chats, total: total})
		c.held += len(chats) + 1
	}
	for c.held > c.limit {
		el := c.lru.Back()
		e := el.Value.(*inboxEntry)
		c.lru.Remove(el)
		delete(c.entries, e.key)
		c.held -= len(e.chats) + 1
	}
}

// inboxKey names one inbox question: the statement's conditions and arguments, the cursor
// and the window.
func inboxKey(where string, args []any, after *app.InboxCursor, offset, limit int) string {
	var b strings.Builder
	b.WriteString(where)
	for _, a := range args {
		fmt.Fprintf(&b, "\x00%T:%s", a, strconv.Quote(fmt.Sprint(a)))
	}
	if after != nil {
		fmt.Fprintf(&b, "\x00after:%s:%s", after.UpdatedAt, after.ID)
	}
	fmt.Fprintf(&b, "\x00%d:%d", offset, limit)
	return b.String()
}

// inboxVersion is the version of everything an inbox answer of the organization is made of,
// in this transaction's snapshot.
func (t *Tx) inboxVersion(orgID string) (int64, error) {
	var v int64
	err := t.row(`SELECT COALESCE(SUM(version), 0) FROM inbox_versions WHERE scope IN (?, '*')`, orgID).Scan(&v)
	return v, mapErr(err)
}
