package api

import (
	"net/http"
	"strconv"

	"wsapi/app"
	"wsapi/app/vcache"
)

// inboxPages keeps inbox pages already encoded. The domain caches the pages' values under
// the version of the data they were read from (app/inboxcache.go) and stamps each answer it
// serves from there; the same stamp means the same chats, so the bytes written for the
// first answer serve every later one until the data changes. Encoding is most of an inbox
// request's cost once the store's work is cached.
type inboxPages struct {
	pages *vcache.Cache[string, []byte]
}

// newInboxPages holds up to chats chats' worth of pages (db.inbox_cache_chats); 0: none.
func newInboxPages(chats int) *inboxPages {
	if chats <= 0 {
		return nil
	}
	return &inboxPages{pages: vcache.New[string, []byte](chats)}
}

// write answers a page of the inbox, from its encoded form when one is held.
func (c *inboxPages) write(w http.ResponseWriter, p app.Page, l app.List[app.Chat]) {
	if c == nil || l.Stamp.Key == "" {
		writeList(w, p, l)
		return
	}
	b, ok := c.pages.Get(l.Stamp.Key, l.Stamp.Version)
	if !ok {
		items := l.Items
		if items == nil {
			items = []app.Chat{}
		}
		var err error
		if b, err = app.EncodeJSON(items); err != nil {
			writeList(w, p, l)
			return
		}
		c.pages.Put(l.Stamp.Key, l.Stamp.Version, b, len(l.Items)+1)
	}
	setListHeaders(w, p, l.Total, l.Next)
	writeEncoded(w, http.StatusOK, b)
}

// setListHeaders sets the four pagination headers of a page.
func setListHeaders(w http.ResponseWriter, p app.Page, total int, next string) {
	h := w.Header()
	h.Set("pagination-count", strconv.Itoa(total))
	h.Set("pagination-page", strconv.Itoa(p.Page))
	h.Set("pagination-take", strconv.Itoa(p.Take))
	h.Set("pagination-next", next)
}
