package app

import (
	"container/list"
	"context"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/singleflight"
)

// inboxCache keeps recent inbox answers (a page, encoded once, or a list's count alone,
// shared by the pages of a cursor walk) under the version of the data they were read from
// (InboxTx.InboxVersion). Inbox views are asked for again and again by every agent's screen
// while little changes; an answer is reused only while nothing it is made of has been
// written, so it is never stale.
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
	list    List[Chat]
}

func newInboxCache(limit int) *inboxCache {
	return &inboxCache{limit: limit, entries: map[string]*list.Element{}, lru: list.New()}
}

// CacheInbox keeps recent inbox answers in memory, up to chats chats in all (0: none).
func (s *Service) CacheInbox(chats int) {
	s.inbox = nil
	if chats > 0 {
		s.inbox = newInboxCache(chats)
	}
}

// get answers the entry for key if it was read at version. Its Items are shared: read only.
func (c *inboxCache) get(key string, version int64) (List[Chat], bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok || el.Value.(*inboxEntry).version != version {
		return List[Chat]{}, false
	}
	c.lru.MoveToFront(el)
	l := el.Value.(*inboxEntry).list
	l.Items = l.Items[:len(l.Items):len(l.Items)] // an append makes a copy
	return l, true
}

// put stores an answer read at version in place of the key's previous one. (A read on an
// older snapshot may replace a newer answer; the next request then reads again. Versions
// are compared for equality only: after a new epoch they need not grow.)
func (c *inboxCache) put(key string, version int64, l List[Chat]) {
	if len(l.Items) >= c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		e := el.Value.(*inboxEntry)
		c.held += len(l.Items) - len(e.list.Items)
		e.version, e.list = version, l
		c.lru.MoveToFront(el)
	} else {
		c.entries[key] = c.lru.PushFront(&inboxEntry{key: key, version: version, list: l})
		c.held += len(l.Items) + 1
	}
	for c.held > c.limit {
		el := c.lru.Back()
		e := el.Value.(*inboxEntry)
		c.lru.Remove(el)
		delete(c.entries, e.key)
		c.held -= len(e.list.Items) + 1
	}
}

// inboxKey names one inbox question; window is "" for the count of the whole list.
func inboxKey(orgID string, f InboxFilter, window string) string {
	if f.Filter != "ASSIGNED_TO_ME" {
		f.MemberID = "" // the same view for every member
	}
	var b strings.Builder
	for _, v := range []string{orgID, f.Search, f.AssistantID, f.AssistantIntegrationID, f.ConversationID, f.ContactID,
		f.SegmentID, f.IntegrationID, f.Status, f.State, f.AIStatus, f.Filter, strconv.Itoa(f.CSATMax), f.MemberID, window} {
		b.WriteString(strconv.Quote(v))
	}
	return b.String()
}

// cachedInbox answers the page from the cache when the data has not changed since it was
// read, else reads it with read (given the list's count when a cached one holds).
func (c *inboxCache) cachedInbox(ctx context.Context, tx Tx, orgID string, f InboxFilter, window string,
	read func(total int) (List[Chat], error)) (List[Chat], error) {
	version, err := tx.InboxVersion(orgID)
	if err != nil {
		return List[Chat]{}, err
	}
	key := inboxKey(orgID, f, window)
	if l, ok := c.get(key, version); ok {
		return l, nil
	}
	// Agents' screens ask for the same view at once after a change: one of them reads it,
	// the others (same question, same version, so the same answer) wait for that read.
	shared, err, _ := c.flight.Do(key+strconv.FormatInt(version, 10), func() (any, error) {
		countKey := inboxKey(orgID, f, "")
		total := -1
		if counted, ok := c.get(countKey, version); ok {
			total = counted.Total
		}
		l, err := read(total)
		if err != nil {
			return l, err
		}
		if l.Encoded, err = EncodeJSON(l.Items); err != nil {
			return l, err
		}
		c.put(key, version, l)
		c.put(countKey, version, List[Chat]{Total: l.Total})
		return l, nil
	})
	if err != nil {
		if ctx.Err() == nil {
			// The reader that went first failed on its own (its client left): read here.
			return read(-1)
		}
		return List[Chat]{}, err
	}
	l := shared.(List[Chat])
	l.Items = l.Items[:len(l.Items):len(l.Items)]
	return l, nil
}
