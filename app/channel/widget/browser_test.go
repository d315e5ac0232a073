package widget_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"wsapi/app/apitest"
	"wsapi/app/browsertest"
)

// site is a page of another origin (its own server) that embeds the widget with the one
// script tag; /bad also identifies its visitor with a wrong user_hash and opens the chat.
func site(t *testing.T, apiURL, asi string) *httptest.Server {
	tag := `<script src="` + apiURL + `/widget.js" data-integration="` + asi + `" async></script>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		extra := ""
		if r.URL.Path == "/bad" {
			extra = `<script>(function go(){ if (!window.AppWidget) return setTimeout(go, 20);
				AppWidget.identify({user_id: "u-1", user_hash: "00ff00ff", name: "Eve"}); AppWidget.open(); })();</script>`
		}
		fmt.Fprintf(w, `<!doctype html><html><head><title>Shop</title></head><body><h1>The shop</h1>%s%s</body></html>`, tag, extra)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// frameRun runs a query inside the widget's iframe, waiting for the frame's document to be
// the chat page (a fresh iframe first holds about:blank): it looks the iframe up again and
// retries until the test's deadline.
func frameRun[T any](t *testing.T, ctx context.Context, what string, q func(chromedp.QueryOption) chromedp.Action[T]) T {
	t.Helper()
	deadline := time.Now().Add(25 * time.Second)
	for {
		v, err := func() (T, error) {
			nodes, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS("iframe[data-appwidget=frame]")))
			if err != nil || len(nodes) == 0 {
				var zero T
				return zero, fmt.Errorf("no iframe yet: %v", err)
			}
			c, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			return chromedp.Run(c, q(chromedp.FromNode(nodes[0])))
		}()
		if err == nil {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("in the widget: %s: %v", what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// frameText waits until the text of sel in the widget holds want, and answers it.
func frameText(t *testing.T, ctx context.Context, sel, want string) string {
	t.Helper()
	deadline := time.Now().Add(25 * time.Second)
	for {
		got := frameRun(t, ctx, "text of "+sel, func(o chromedp.QueryOption) chromedp.Action[string] {
			return chromedp.Text(chromedp.CSS(sel), o)
		})
		if strings.Contains(got, want) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("in the widget: %s is %q, want it to hold %q", sel, got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func do(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// TestWidgetInABrowser is the "done when": a page of another origin embeds the
// script tag; the visitor opens the widget, writes, and sees builtin:retrieval's answer
// stream in; a member's reply through the API appears without a reload; a reload shows the
// same conversation; an identified visitor with a bad hash is refused.
func TestWidgetInABrowser(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	var a, k, d map[string]any
	e.Do("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": "Aria", "config": map[string]any{
		"conversation": map[string]any{"welcome_banner": "Hi! Ask us anything.",
			"suggested_messages": []string{"Do you ship abroad?"}}}}).Expect(201).JSON(&a)
	asst := a["id"].(string)
	e.Do("POST", "/orgs/c/assistants/"+asst+"/knowledge/contents", e.AdminKey, map[string]any{"title": "Hours",
		"content": map[string]any{"type": "TEXT", "text": "Our opening hours are nine to five, Monday to Friday."}}).Expect(201).JSON(&k)
	e.Eventually(20*time.Second, "knowledge processed", func() bool {
		var got map[string]any
		e.Do("GET", "/orgs/c/assistants/"+asst+"/knowledge/contents/"+k["id"].(string), e.AdminKey, nil).Expect(200).JSON(&got)
		return got["status"] == "PROCESSED"
	})
	// Only the shop's origin may frame the widget (allowed_origins, set once the shop runs).
	e.Do("POST", "/orgs/c/assistants/"+asst+"/integrations", e.AdminKey, map[string]any{"integration_id": "internal",
		"name": "Shop", "config": map[string]any{}}).Expect(201).JSON(&d)
	asi := d["id"].(string)
	shop := site(t, e.Server.URL, asi)
	e.Do("PATCH", "/orgs/c/assistants/"+asst+"/integrations/"+asi, e.AdminKey, map[string]any{
		"config": map[string]any{"allowed_origins": []string{shop.URL}}}).Expect(200)

	ctx := browsertest.New(t)
	do(t, ctx, "open the shop", chromedp.Navigate(shop.URL), chromedp.WaitVisible(chromedp.CSS("button[data-appwidget=launcher]")))
	do(t, ctx, "open the widget", chromedp.Click(chromedp.CSS("button[data-appwidget=launcher]")))
	frameText(t, ctx, "#banner", "Hi! Ask us anything.")
	frameText(t, ctx, "#suggested", "Do you ship abroad?")

	frameRun(t, ctx, "write", func(o chromedp.QueryOption) chromedp.Action[chromedp.Void] {
		return chromedp.SendKeys(chromedp.CSS("#text"), "What are your opening hours?", o)
	})
	frameRun(t, ctx, "send", func(o chromedp.QueryOption) chromedp.Action[chromedp.Void] {
		return chromedp.Click(chromedp.CSS(`#send button[type=submit]`), o)
	})
	frameText(t, ctx, ".msg.user", "What are your opening hours?")
	// The debounce: the clock moves on until the answer is complete. One step was not enough
	// on a loaded machine: the page may show the message before its POST has committed, and a
	// step taken before the commit leaves the run due a second later, forever.
	stopClock := make(chan struct{})
	go func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopClock:
				return
			case <-tick.C:
				e.Clock.Advance(time.Second)
			}
		}
	}()
	answer := frameText(t, ctx, ".msg.assistant", "nine to five")
	frameText(t, ctx, `.msg.assistant[data-status="COMPLETED"]`, "nine to five")
	close(stopClock)
	browsertest.Screenshot(t, ctx, "widget-answer", 1280)

	// A member's reply through the API appears without a reload.
	var chats []map[string]any
	e.Do("GET", "/orgs/c/inbox?assistant_integration_id="+asi, e.AdminKey, nil).Expect(200).JSON(&chats)
	if len(chats) != 1 {
		t.Fatalf("inbox: %v", chats)
	}
	e.Do("POST", "/orgs/c/chats/"+chats[0]["id"].(string)+"/messages", e.AdminKey, map[string]any{"role": "admin",
		"messages": []map[string]any{{"role": "admin", "parts": []map[string]any{{"type": "text", "text": "A human here: anything else?"}}}}}).Expect(201)
	frameText(t, ctx, ".msg.admin", "A human here: anything else?")

	// A reload shows the same conversation.
	do(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("button[data-appwidget=launcher]")))
	do(t, ctx, "open again", chromedp.Click(chromedp.CSS("button[data-appwidget=launcher]")))
	frameText(t, ctx, ".msg.user", "What are your opening hours?")
	frameText(t, ctx, ".msg.assistant", strings.TrimSpace(answer)[:20])
	frameText(t, ctx, ".msg.admin", "A human here")

	// An identified visitor with a bad hash is refused.
	do(t, ctx, "bad identity", chromedp.Navigate(shop.URL+"/bad"))
	frameText(t, ctx, "#error", "user_hash does not match user_id")
	var n int
	var contacts []map[string]any
	e.Do("GET", "/orgs/c/contacts", e.AdminKey, nil).Expect(200).JSON(&contacts)
	for _, c := range contacts {
		if c["name"] == "Eve" {
			n++
		}
	}
	if n != 0 {
		t.Fatalf("the refused visitor became a contact")
	}
}
