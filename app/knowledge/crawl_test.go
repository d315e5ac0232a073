package knowledge_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"wsapi/app/apitest"
	"wsapi/cli"
)

func TestCrawlRespectsMaxPagesAndHost(t *testing.T) {
	t.Parallel()
	var offHost atomic.Int64
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		offHost.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page("Elsewhere", "Off-host text about ocelots."))
	}))
	defer elsewhere.Close()
	var hits atomic.Int64
	mux := http.NewServeMux()
	for i := 0; i < 8; i++ {
		mux.HandleFunc(fmt.Sprintf("/p%d", i), func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Header().Set("Content-Type", "text/html")
			// Each page links off-host first, then to itself, to the next two pages and to the first.
			fmt.Fprint(w, page(fmt.Sprintf("Page %d", i), fmt.Sprintf("Text of page %d about capybaras.", i),
				elsewhere.URL+"/x", fmt.Sprintf("/p%d", i), fmt.Sprintf("/p%d#top", i+1), fmt.Sprintf("/p%d", i+2), "/p0"))
		})
	}
	s := httptest.NewServer(mux)
	defer s.Close()
	e := newEnv(t)
	asst := assistant(t, e)

	k := settle(t, e, asst, addURL(t, e, asst, s.URL+"/p0", 3).ID)
	requireNoError(t, k)
	if k.Status != "PROCESSED" || len(k.Children) != 2 || hits.Load() != 3 {
		t.Fatalf("crawl %+v, %d fetches", k, hits.Load())
	}
	for i, c := range k.Children {
		if c.Title != fmt.Sprintf("Page %d", i+1) || c.Content.URL != fmt.Sprintf("%s/p%d", s.URL, i+1) ||
			c.Status != "PROCESSED" || *c.ParentContentID != k.ID {
			t.Fatalf("child %d %+v", i, c)
		}
	}
	if offHost.Load() != 0 || len(search(t, e, asst, "ocelots")) != 0 {
		t.Fatalf("off-host link followed %d times", offHost.Load())
	}
	if got := len(search(t, e, asst, "capybaras")); got != 3 {
		t.Fatalf("%d pages indexed", got)
	}
	// Children are not listed at the top level.
	list := e.Do("GET", contentsPath(asst), e.AdminKey, nil).Expect(200)
	if l := list.List(); len(l) != 1 || list.Header.Get("pagination-count") != "1" {
		t.Fatalf("list %s", list.Body)
	}

	// Without max_pages the default (50) applies: the whole site, each page once; the links
	// to /p8 and /p9, which do not exist, are FAILED children.
	hits.Store(0)
	k = addURL(t, e, asst, s.URL+"/p0", 0)
	if k.Content.MaxPages != 50 {
		t.Fatalf("max_pages defaults to %d", k.Content.MaxPages)
	}
	k = settle(t, e, asst, k.ID)
	if k.Status != "PROCESSED" || len(k.Children) != 9 || hits.Load() != 8 {
		t.Fatalf("full crawl: %d children, %d fetches", len(k.Children), hits.Load())
	}
	for i, c := range k.Children {
		failed := c.Status == "FAILED" && c.Error != nil && strings.Contains(*c.Error, "404")
		if failed != (i >= 7) {
			t.Fatalf("child %d %+v", i, c)
		}
	}
}

func TestCrawlFailedPageIsAFailedChild(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page("Root", "Root page about tapirs.", "/broken", "/fine", "/binary"))
	})
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) })
	mux.HandleFunc("/fine", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "Plain page about tapirs.")
	})
	mux.HandleFunc("/binary", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte{0x89, 'P', 'N', 'G'})
	})
	s := httptest.NewServer(mux)
	defer s.Close()
	e := newEnv(t)
	asst := assistant(t, e)
	k := settle(t, e, asst, addURL(t, e, asst, s.URL+"/", 10).ID)
	requireNoError(t, k)
	if k.Status != "PROCESSED" || len(k.Children) != 3 {
		t.Fatalf("crawl %+v", k)
	}
	broken, fine, binary := k.Children[0], k.Children[1], k.Children[2]
	if broken.Status != "FAILED" || broken.Error == nil || !strings.Contains(*broken.Error, "500") || broken.ChunksCount != 0 {
		t.Fatalf("broken child %+v", broken)
	}
	if fine.Status != "PROCESSED" || fine.Error != nil || fine.ChunksCount != 1 || fine.ChunksProcessed != 1 {
		t.Fatalf("fine child %+v", fine)
	}
	if binary.Status != "FAILED" || binary.Error == nil || !strings.Contains(*binary.Error, "image/png") {
		t.Fatalf("binary child %+v", binary)
	}
	// The status filter sees the top level only: the failed child is not listed.
	e.Do("GET", contentsPath(asst)+"?status=FAILED", e.AdminKey, nil).Expect(200).JSON(&k.Children)
	if len(k.Children) != 0 {
		t.Fatalf("failed children listed: %+v", k.Children)
	}
	// A root page that fails fails the content.
	root := settle(t, e, asst, addURL(t, e, asst, s.URL+"/broken", 5).ID)
	if root.Status != "FAILED" || root.Error == nil || !strings.Contains(*root.Error, "500") || len(root.Children) != 0 {
		t.Fatalf("root %+v", root)
	}
}

func TestCrawlRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	apitest.Resolver.Set("intranet.example.test", apitest.Addrs("10.1.2.3"))
	e := newEnv(t, func(c *cli.Config) { c.Webhooks.AllowPrivateTargets = false })
	asst := assistant(t, e)
	k := settle(t, e, asst, addURL(t, e, asst, "http://intranet.example.test/wiki", 5).ID)
	if k.Status != "FAILED" || k.Error == nil || !strings.Contains(*k.Error, "10.1.2.3") ||
		!strings.Contains(*k.Error, "forbidden") || len(k.Children) != 0 {
		t.Fatalf("content %+v", k)
	}
	// Loopback too, given as an address.
	s := crawlSite(t)
	k = settle(t, e, asst, addURL(t, e, asst, s.URL+"/", 5).ID)
	if k.Status != "FAILED" || k.Error == nil || !strings.Contains(*k.Error, "forbidden") {
		t.Fatalf("loopback content %+v", k)
	}
}

func TestURLContentValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	asst := assistant(t, e)
	post := func(content map[string]any) map[string]any {
		return map[string]any{"content": content}
	}
	for _, u := range []string{"ftp://example.com/x", "file:///etc/passwd", "javascript:alert(1)", "example.com", "",
		"http://user:pass@example.com/", "http:///path"} {
		e.Do("POST", contentsPath(asst), e.AdminKey, post(map[string]any{"type": "URL", "url": u})).
			ExpectError(400, "invalid_argument", "content.url")
	}
	for _, n := range []int{51, -1, 1000} {
		e.DoInvalid("POST", contentsPath(asst), e.AdminKey, post(map[string]any{"type": "URL", "url": "https://example.com/", "max_pages": n})).
			ExpectError(400, "invalid_argument", "content.max_pages")
	}
	var k map[string]any
	for _, n := range []int{50, 1} {
		k = e.Do("POST", contentsPath(asst), e.AdminKey, map[string]any{"title": "Docs",
			"content": map[string]any{"type": "URL", "url": "https://example.invalid/", "max_pages": n}}).Expect(201).Map()
		if k["content"].(map[string]any)["max_pages"] != float64(n) || k["title"] != "Docs" {
			t.Fatalf("created %v", k)
		}
	}
	e.DoInvalid("POST", contentsPath(asst), e.AdminKey, post(map[string]any{"type": "URL", "url": "https://example.com/", "max_pages": "3"})).
		ExpectError(400, "invalid_argument")
	e.DoInvalid("POST", contentsPath(asst), e.AdminKey, post(map[string]any{"type": "FILE"})).ExpectError(400, "invalid_argument", "content.type")
	e.Do("POST", contentsPath(asst), e.AdminKey, post(map[string]any{"type": "TEXT", "text": "x"})).ExpectError(400, "invalid_argument", "title")
	e.Do("POST", contentsPath(asst), e.AdminKey, map[string]any{"title": "T", "content": map[string]any{"type": "TEXT", "text": " \n "}}).
		ExpectError(400, "invalid_argument", "content.text")
	e.DoInvalid("POST", contentsPath(asst), e.AdminKey, map[string]any{"title": strings.Repeat("é", 256),
		"content": map[string]any{"type": "TEXT", "text": "x"}}).ExpectError(400, "invalid_argument", "title")
	e.Do("POST", contentsPath(asst), e.AdminKey, map[string]any{"title": strings.Repeat("é", 255),
		"content": map[string]any{"type": "TEXT", "text": "x"}}).Expect(201)
	e.DoInvalid("POST", contentsPath(asst), e.AdminKey, map[string]any{"title": "T", "extra": 1,
		"content": map[string]any{"type": "TEXT", "text": "x"}}).ExpectError(400, "invalid_argument", "extra")
}

func TestMaxPagesCeilingFromConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *cli.Config) { c.Knowledge.MaxPages = 4 })
	asst := assistant(t, e)
	if k := addURL(t, e, asst, "https://example.invalid/", 0); k.Content.MaxPages != 4 {
		t.Fatalf("default max_pages %d", k.Content.MaxPages)
	}
	e.Do("POST", contentsPath(asst), e.AdminKey, map[string]any{"content": map[string]any{"type": "URL",
		"url": "https://example.invalid/", "max_pages": 5}}).ExpectError(400, "invalid_argument", "content.max_pages")
}
