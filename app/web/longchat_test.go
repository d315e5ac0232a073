package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/app/browsertest"
)

// longChat makes a conversation of n contact messages "message 1" .. "message n".
func longChat(t *testing.T, e *apitest.Env, n int) app.Chat {
	t.Helper()
	c := conversation(t, e, "Long Talker")
	caller := app.Caller{OrgID: e.Org.ID}
	for i := 1; i <= n; i++ {
		in := app.MessageInput{Role: "user", Messages: []app.Turn{{Role: "user", Parts: []app.Part{{Type: "text", Text: fmt.Sprintf("message %d", i)}}}}}
		if _, err := e.Runtime.Service.AddMessage(context.Background(), caller, c.ID, in); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// A conversation of 2,000 messages opens with its newest 50 only; each older page loads on
// demand, the oldest with nothing above it.
func TestLongConversationLoadsByPages(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	c := longChat(t, e, 2000)
	b := signedIn(t, e, e.Owner)
	start := time.Now()
	page := b.get("/app/?chat="+c.ID).expect(t, 200)
	t.Logf("inbox page with a 2,000-message chat open: %v, %d bytes", time.Since(start), len(page.Body))
	if n := strings.Count(page.Body, `<article class="msg`); n != 50 {
		t.Fatalf("%d messages rendered, want the newest 50", n)
	}
	if !strings.Contains(page.Body, "message 2000") || strings.Contains(page.Body, ">message 1950<") ||
		!strings.Contains(page.Body, "/messages?page=39") {
		t.Fatal("the open chat does not show the newest page with a loader of the one above")
	}
	older := b.get("/app/chats/"+c.ID+"/messages?page=1", "HX-Request", "true").expect(t, 200)
	if n := strings.Count(older.Body, `<article class="msg`); n != 50 || !strings.Contains(older.Body, ">message 1<") ||
		strings.Contains(older.Body, "page=0") || strings.Contains(older.Body, `class="older"`) {
		t.Fatalf("oldest page: %d messages\n%.400s", n, older.Body)
	}
	b.get("/app/chats/"+c.ID+"/messages?page=0", "HX-Request", "true").expect(t, 400)
}

// In the browser, scrolling to the top of a long conversation loads the page above and
// keeps the reader's place.
func TestBrowserLongConversationScrollsUp(t *testing.T) {
	t.Parallel()
	e := newLiveEnv(t)
	c := longChat(t, e, 200)
	token, _, err := e.Runtime.SignIn.OwnerSetupLink(context.Background(), e.Org.ID)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.New(t)
	step(t, ctx, "sign in", chromedp.Navigate(e.Server.URL+"/app/setup?token="+token),
		chromedp.SetValue(chromedp.CSS("#password"), testPassword), chromedp.SetValue(chromedp.CSS("#password_again"), testPassword),
		chromedp.Click(chromedp.CSS("#setup-submit")), chromedp.WaitVisible(chromedp.CSS("#list-pane")),
		chromedp.Navigate(e.Server.URL+"/app/?chat="+c.ID), chromedp.WaitVisible(chromedp.CSS("#messages")))
	until(t, ctx, "opens at the newest message", `(() => { const b = document.querySelector("#messages"); return b.scrollHeight - b.scrollTop - b.clientHeight < 40 })()`)
	if n := eval[int](t, ctx, `document.querySelectorAll("#messages article").length`); n != 50 {
		t.Fatalf("%d messages at first", n)
	}
	eval[any](t, ctx, `document.querySelector("#messages").scrollTop = 0`)
	until(t, ctx, "the page above loads", `document.querySelectorAll("#messages article").length === 100`)
	until(t, ctx, "the reader's place is kept", `document.querySelector("#messages").scrollTop > 0`)
	ids := eval[int](t, ctx, `new Set([...document.querySelectorAll("#messages article")].map(a => a.id)).size`)
	if ids != 100 {
		t.Fatalf("%d distinct messages, want 100", ids)
	}
}
