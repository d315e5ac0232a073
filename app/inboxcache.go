package app

import (
	"context"
	"strconv"
	"strings"

	"golang.org/x/sync/singleflight"

	"wsapi/app/vcache"
)

// inboxCache keeps recent inbox answers (a page, or a list's count alone,
// shared by the pages of a cursor walk) under the version of the data they were read from
// (InboxTx.InboxVersion). Inbox views are asked for again and again by every agent's screen
// while little changes; an answer is reused only while nothing it is made of has been
// written, so it is never stale.
type inboxCache struct {
	// answers weigh their chats, plus one for the entry.
	answers *vcache.Cache[string, List[Chat]]
	flight  singleflight.Group
}

func newInboxCache(limit int) *inboxCache {
	return &inboxCache{answers: vcache.New[string, List[Chat]](limit)}
}

// get answers the entry for key if it was read at version. Its Items are shared: read only.
func (c *inboxCache) get(key string, version int64) (List[Chat], bool) {
	l, ok := c.answers.Get(key, version)
	l.Items = l.Items[:len(l.Items):len(l.Items)] // an append makes a copy
	return l, ok
}

func (c *inboxCache) put(key string, version int64, l List[Chat]) {
	c.answers.Put(key, version, l, len(l.Items)+1)
}

// inboxKey names one inbox question; window is "" for the count of the whole list. It lists
// the filter's fields by hand (no reflection on the path of every inbox request);
// TestCacheKeysNameEveryField fails when a field of InboxFilter is left out.
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
		l.Stamp = Stamp{Key: key, Version: version}
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
