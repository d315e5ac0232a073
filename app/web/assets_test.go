package web_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"wsapi/app/apitest"
)

// The inbox's JavaScript and CSS, as the browser downloads them (gzipped), weigh under
// 150 KB; each is served under a content-hashed name, cached for a year.
func TestInboxPageWeight(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	b := signedIn(t, e, e.Owner)
	page := b.get("/app/").expect(t, 200)
	assets := regexp.MustCompile(`(?:src|href)="(/app/static/[^"]+)"`).FindAllStringSubmatch(page.Body, -1)
	if len(assets) != 3 {
		t.Fatalf("the inbox loads %d assets, want htmx, app.js and app.css: %v", len(assets), assets)
	}
	total := 0
	for _, a := range assets {
		req, _ := http.NewRequest("GET", e.Server.URL+a[1], nil)
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" ||
			res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Fatalf("%s: %d %v", a[1], res.StatusCode, res.Header)
		}
		if !regexp.MustCompile(`\.[0-9a-f]{10}\.(js|css)$`).MatchString(a[1]) {
			t.Fatalf("%s has no content hash in its name", a[1])
		}
		total += len(body)
	}
	t.Logf("inbox JS+CSS gzipped: %d bytes", total)
	if total >= 150*1024 {
		t.Fatalf("inbox JS+CSS weigh %d bytes gzipped, over 150 KB", total)
	}
	b.get("/app/static/app.0000000000.js").expect(t, 404) // an old name is not served
}

// Every page carries the strict CSP and holds no inline script, style or handler, so the
// policy never has to allow them; nothing is loaded from another origin.
func TestPagesHaveStrictCSPAndNoInlineCode(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	c := conversation(t, e, "Gil Page")
	contactSays(t, e, c.ID, "hi")
	b := signedIn(t, e, e.Owner)
	pages := map[string]answer{
		"signin":  newTab(t, e).get("/app/signin"),
		"inbox":   b.get("/app/?chat=" + c.ID),
		"members": b.get("/app/members"),
		"chat":    b.get("/app/chats/"+c.ID, "HX-Request", "true"),
		"missing": b.get("/app/nothing-here"),
	}
	inline := regexp.MustCompile(`(?i)\son[a-z]+=|\sstyle=|<style|javascript:|https?://`)
	scripts := regexp.MustCompile(`(?is)<script([^>]*)>(.*?)</script>`)
	for name, a := range pages {
		csp := a.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Fatalf("%s: CSP %q lacks %q", name, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe") {
			t.Fatalf("%s: CSP allows %q", name, csp)
		}
		for _, sc := range scripts.FindAllStringSubmatch(a.Body, -1) {
			if !strings.Contains(sc[1], `src="/app/static/`) || strings.TrimSpace(sc[2]) != "" {
				t.Fatalf("%s: inline script %q", name, sc[0])
			}
		}
		if m := inline.FindString(a.Body); m != "" {
			t.Fatalf("%s: inline code or a foreign URL %q", name, m)
		}
		if a.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("%s: no nosniff", name)
		}
	}
}

// The vendored htmx is the pinned release: its bytes after the header line are npm's
// htmx.org@2.0.11 dist/htmx.min.js, and its license sits beside it.
func TestVendoredHtmxIsPinned(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("static/htmx.min.js")
	if err != nil {
		t.Fatal(err)
	}
	header, body, _ := strings.Cut(string(b), "\n")
	if !strings.Contains(header, "htmx.org 2.0.11") || !strings.Contains(header, "Zero-Clause BSD") {
		t.Fatalf("header %q", header)
	}
	sum := sha256.Sum256([]byte(body))
	if got := hex.EncodeToString(sum[:]); got != "d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717" {
		t.Fatalf("htmx.min.js is not the pinned release: sha256 %s", got)
	}
	if lic, err := os.ReadFile("static/htmx.LICENSE"); err != nil || !strings.Contains(string(lic), "Zero-Clause BSD") {
		t.Fatalf("license: %v", err)
	}
}
