package browsertest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"wsapi/app/browsertest"
)

// The browser starts, loads a page from loopback, runs its script and is screenshotted.
func TestBrowserLoadsALoopbackPage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><title>t</title><p id="p">before</p>` +
			`<script>document.getElementById("p").textContent = "after"</script>`))
	}))
	defer srv.Close()
	t.Setenv("SCREENSHOT_DIR", t.TempDir())
	ctx := browsertest.New(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatal(err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#p")))
	if err != nil {
		t.Fatal(err)
	}
	if text != "after" {
		t.Fatalf("script did not run: %q", text)
	}
	browsertest.Screenshot(t, ctx, "loopback", 360)
	if fi, err := os.Stat(filepath.Join(browsertest.ScreenshotDir(), "loopback.png")); err != nil || fi.Size() == 0 {
		t.Fatalf("screenshot not written: %v", err)
	}
}

// Tests share one browser, each in its own browser context: a cookie set in one test's
// context is not sent from another's, and a second tab of the same context sends it.
func TestBrowserContextsKeepCookiesApart(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/set" {
			http.SetCookie(w, &http.Cookie{Name: "who", Value: "first", Path: "/"})
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		c, _ := r.Cookie("who")
		v := "none"
		if c != nil {
			v = c.Value
		}
		_, _ = w.Write([]byte(`<!doctype html><title>t</title><p id="p">` + v + `</p>`))
	}))
	defer srv.Close()
	cookie := func(ctx context.Context, path string) string {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+path)); err != nil {
			t.Fatal(err)
		}
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#p")))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	first := browsertest.New(t)
	cookie(first, "/set")
	if v := cookie(browsertest.NewTab(t, first), "/"); v != "first" {
		t.Fatalf("a second tab of the same context sends %q", v)
	}
	if v := cookie(browsertest.New(t), "/"); v != "none" {
		t.Fatalf("another test's context sends the cookie %q", v)
	}
}
