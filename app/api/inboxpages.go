package api

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"

	"wsapi/app"
	"wsapi/app/vcache"
)

// inboxPages keeps inbox pages already encoded. The domain caches the pages' values under
// the version of the data they were read from (app/inboxcache.go) and stamps each answer it
// serves from there; the same stamp means the same chats, so the bytes written for the
// first answer serve every later one until the data changes. Encoding is most of an inbox
// request's cost once the store's work is cached, and so is compressing: a page is kept
// gzipped too once a client that takes gzip has asked for it (compressing the same page
// again for every client was a quarter of the CPU of bench/inbox's broad searches).
type inboxPages struct {
	pages    *vcache.Cache[string, encodedPage]
	compress bool // ops.compress: answers over compressMin bytes may be compressed
}

// encodedPage is a page's JSON and, once asked for, that JSON gzipped.
type encodedPage struct {
	json, gz []byte
}

// newInboxPages holds up to chats chats' worth of pages (db.inbox_cache_chats); 0: none.
func newInboxPages(chats int, compress bool) *inboxPages {
	if chats <= 0 {
		return nil
	}
	return &inboxPages{pages: vcache.New[string, encodedPage](chats), compress: compress}
}

// write answers a page of the inbox, from its encoded form when one is held.
func (c *inboxPages) write(w http.ResponseWriter, r *http.Request, p app.Page, l app.List[app.Chat]) {
	if c == nil || l.Stamp.Key == "" {
		writeList(w, p, l)
		return
	}
	pg, held := c.pages.Get(l.Stamp.Key, l.Stamp.Version)
	if !held {
		items := l.Items
		if items == nil {
			items = []app.Chat{}
		}
		b, err := app.EncodeJSON(items)
		if err != nil {
			writeList(w, p, l)
			return
		}
		pg = encodedPage{json: b}
	}
	setListHeaders(w, p, l.Total, l.Next)
	if grown := writeKeptPage(w, r, c.compress, &pg); !held || grown {
		c.pages.Put(l.Stamp.Key, l.Stamp.Version, pg, len(l.Items)+1)
	}
}

// writeKeptPage answers 200 with a page kept encoded: gzipped when compression is on, the page
// is big enough and the client takes gzip, as is otherwise. The gzipped form is made once,
// into pg; grown says it was made now, so the caller keeps pg again.
func writeKeptPage(w http.ResponseWriter, r *http.Request, compress bool, pg *encodedPage) (grown bool) {
	if !compress || len(pg.json) < compressMin || !acceptsGzip(r.Header.Get("Accept-Encoding")) {
		writeEncoded(w, http.StatusOK, pg.json)
		return false
	}
	if pg.gz == nil {
		pg.gz, grown = gzipped(pg.json), true
	}
	// Already encoded: the compression middleware passes it through as it is.
	w.Header().Set("Content-Encoding", "gzip")
	w.Header().Add("Vary", "Accept-Encoding")
	writeEncoded(w, http.StatusOK, pg.gz)
	return grown
}

// gzipped is b compressed as the compression middleware does (compressLevel).
func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, compressLevel) // a valid level: no error
	zw.Write(b)                                       // into memory: no error
	zw.Close()
	return buf.Bytes()
}

// acceptsGzip tells whether an Accept-Encoding header takes gzip: named, or by "*", with a
// q-value above 0 (RFC 9110, 12.5.3).
func acceptsGzip(header string) bool {
	star := false
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(part, ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "*" {
			continue
		}
		ok := true
		if k, v, found := strings.Cut(strings.TrimSpace(params), "="); found && strings.TrimSpace(k) == "q" {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			ok = err == nil && q > 0
		}
		if name == "gzip" {
			return ok
		}
		star = ok
	}
	return star
}

// setListHeaders sets the four pagination headers of a page.
func setListHeaders(w http.ResponseWriter, p app.Page, total int, next string) {
	h := w.Header()
	h.Set("pagination-count", strconv.Itoa(total))
	h.Set("pagination-page", strconv.Itoa(p.Page))
	h.Set("pagination-take", strconv.Itoa(p.Take))
	h.Set("pagination-next", next)
}
