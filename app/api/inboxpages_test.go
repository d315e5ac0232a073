package api

import (
	"compress/gzip"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"wsapi/app"
)

// TestInboxPagesReuseEncoding: a page stamped as before is written from the bytes kept for
// it; a new version, or no stamp, is encoded afresh.
func TestInboxPagesReuseEncoding(t *testing.T) {
	c := newInboxPages(100, true)
	p := app.Page{Page: 1, Take: 10}
	write := func(title string, stamp app.Stamp) string {
		rec := httptest.NewRecorder()
		c.write(rec, httptest.NewRequest("GET", "/orgs/c/inbox", nil), p, app.List[app.Chat]{Items: []app.Chat{{ID: "ch_1", Title: &title}}, Total: 1, Stamp: stamp})
		if rec.Header().Get("pagination-count") != "1" {
			t.Errorf("pagination-count %q", rec.Header().Get("pagination-count"))
		}
		return rec.Body.String()
	}
	s1 := app.Stamp{Key: "inbox", Version: 1}
	for _, c := range []struct {
		title string
		stamp app.Stamp
		want  string
	}{
		{"first", s1, "first"},
		{"second", s1, "first"}, // the same stamp: the same chats, the kept bytes
		{"third", app.Stamp{Key: "inbox", Version: 2}, "third"},
		{"fourth", app.Stamp{}, "fourth"},
	} {
		if got := write(c.title, c.stamp); !strings.Contains(got, `"`+c.want+`"`) {
			t.Errorf("%s under %v: body %s, want the title %q", c.title, c.stamp, got, c.want)
		}
	}
	if newInboxPages(0, true) != nil {
		t.Error("a zero limit keeps pages")
	}
}

// TestInboxPagesKeepTheirGzip: a client that takes gzip gets the page gzipped, compressed
// once per stamp and kept; one that refuses it (q=0), or a small page, gets the JSON.
func TestInboxPagesKeepTheirGzip(t *testing.T) {
	c := newInboxPages(100, true)
	p := app.Page{Page: 1, Take: 100}
	long := strings.Repeat("a long title ", 200) // over compressMin
	write := func(title, acceptEncoding string, version int64) *httptest.ResponseRecorder {
		rq := httptest.NewRequest("GET", "/orgs/c/inbox", nil)
		rq.Header.Set("Accept-Encoding", acceptEncoding)
		rec := httptest.NewRecorder()
		c.write(rec, rq, p, app.List[app.Chat]{Items: []app.Chat{{ID: "ch_1", Title: &title}}, Total: 1,
			Stamp: app.Stamp{Key: "inbox", Version: version}})
		return rec
	}
	body := func(rec *httptest.ResponseRecorder) string {
		if rec.Header().Get("Content-Encoding") != "gzip" {
			return rec.Body.String()
		}
		zr, err := gzip.NewReader(rec.Body)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	plain := write(long, "", 1)
	for _, tc := range []struct {
		title, accept string
		version       int64
		gzip          bool
	}{
		{long, "gzip", 1, true},
		{"changed", "gzip, deflate, br", 1, true}, // the same stamp: the kept page, kept gzipped
		{long, "br;q=1.0, gzip;q=0", 1, false},
		{long, "*", 1, true},
		{long, "*;q=0", 1, false},
		{long, "identity", 1, false},
		{"short", "gzip", 2, false}, // under compressMin
	} {
		rec := write(tc.title, tc.accept, tc.version)
		if got := rec.Header().Get("Content-Encoding") == "gzip"; got != tc.gzip {
			t.Errorf("Accept-Encoding %q: gzipped %v, want %v", tc.accept, got, tc.gzip)
		}
		want := plain.Body.String()
		if tc.version == 2 {
			want = `[{"id":"ch_1"`
		}
		sent := rec.Body.Len()
		if got := body(rec); !strings.HasPrefix(got, want) || rec.Header().Get("Content-Length") != strconv.Itoa(sent) {
			t.Errorf("Accept-Encoding %q: body %.60s (length %s of %d), want %.60s", tc.accept, got, rec.Header().Get("Content-Length"), sent, want)
		}
	}
	if newInboxPages(10, false).compress {
		t.Error("compression off, pages gzipped")
	}
}
