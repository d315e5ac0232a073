package api

import (
	"net/http/httptest"
	"strings"
	"testing"

	"wsapi/app"
)

// TestInboxPagesReuseEncoding: a page stamped as before is written from the bytes kept for
// it; a new version, or no stamp, is encoded afresh.
func TestInboxPagesReuseEncoding(t *testing.T) {
	c := newInboxPages(100)
	p := app.Page{Page: 1, Take: 10}
	write := func(title string, stamp app.Stamp) string {
		rec := httptest.NewRecorder()
		c.write(rec, p, app.List[app.Chat]{Items: []app.Chat{{ID: "ch_1", Title: &title}}, Total: 1, Stamp: stamp})
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
	if newInboxPages(0) != nil {
		t.Error("a zero limit keeps pages")
	}
}
