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
	"wsapi/cli"
)

// newLiveEnv is a server whose run worker ticks fast, for the assistant to answer at once.
func newLiveEnv(t *testing.T) *apitest.Env {
	return apitest.New(t, func(c *cli.Config) {
		c.HTTP.RateLimitPerMinute = 1 << 20
		c.Assistants.Tick = 5 * time.Millisecond
		c.Assistants.FlushInterval = 20 * time.Millisecond
		c.Events.StreamHeartbeat = time.Second
	})
}

// assistantChat makes an assistant (builtin:retrieval: no provider is configured) that
// knows the opening hours, a contact and a conversation between them.
func assistantChat(t *testing.T, e *apitest.Env) app.Chat {
	t.Helper()
	var a app.Assistant
	e.Do("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": "Helper"}).Expect(201).JSON(&a)
	var k struct{ ID string }
	e.Do("POST", "/orgs/c/assistants/"+a.ID+"/knowledge/contents", e.AdminKey, map[string]any{"title": "Opening hours",
		"content": map[string]any{"type": "TEXT", "text": "Our shop is open from nine to five on weekdays.\n\nOn Saturdays we open at ten."}}).Expect(201).JSON(&k)
	e.Eventually(10*time.Second, "knowledge processed", func() bool {
		var got struct{ Status string }
		e.Do("GET", "/orgs/c/assistants/"+a.ID+"/knowledge/contents/"+k.ID, e.AdminKey, nil).Expect(200).JSON(&got)
		return got.Status == "PROCESSED"
	})
	var ct app.Contact
	e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": "Ana Lima",
		"channels": []map[string]any{{"type": "custom", "user_id": "ana-1"}}}).Expect(201).JSON(&ct)
	var c app.Chat
	e.Do("POST", "/orgs/c/chats", e.AdminKey, map[string]any{"contact_id": ct.ID, "assistant_id": a.ID}).Expect(201).JSON(&c)
	return c
}

// step runs browser actions, failing the test with what was being done.
func step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(sctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// until waits for a JavaScript condition to hold in the page.
func until(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.Run(sctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		html, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("document.body ? document.body.innerText.slice(0, 1500) : ''"))
		t.Fatalf("%s: %v\npage text:\n%s", what, err, html)
	}
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

func chatState(t *testing.T, e *apitest.Env, id string) app.Chat {
	t.Helper()
	var c app.Chat
	e.Do("GET", "/orgs/c/chats/"+id, e.AdminKey, nil).Expect(200).JSON(&c)
	return c
}

// The owner signs in with the set-up link, sets a password, signs out and back in; a
// contact's new message appears in the list live; the owner opens it, watches the
// assistant's answer stream in, takes over, replies, hands back to the AI and resolves; a
// request without the CSRF token is refused. Screenshots of the inbox at desktop and 360 px.
func TestBrowserWorksAConversation(t *testing.T) {
	t.Parallel()
	e := newLiveEnv(t)
	c := assistantChat(t, e)
	token, owner, err := e.Runtime.SignIn.OwnerSetupLink(context.Background(), e.Org.ID)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.New(t)
	base := e.Server.URL

	step(t, ctx, "set-up link", chromedp.Navigate(base+"/app/setup?token="+token),
		chromedp.SetValue(chromedp.CSS("#password"), testPassword), chromedp.SetValue(chromedp.CSS("#password_again"), testPassword),
		chromedp.Click(chromedp.CSS("#setup-submit")), chromedp.WaitVisible(chromedp.CSS("#list-pane")))
	step(t, ctx, "sign out", chromedp.Click(chromedp.CSS("#signout")), chromedp.WaitVisible(chromedp.CSS("#email")))
	step(t, ctx, "sign in", chromedp.SetValue(chromedp.CSS("#email"), owner.Email), chromedp.SetValue(chromedp.CSS("#password"), testPassword),
		chromedp.Click(chromedp.CSS("#signin-submit")), chromedp.WaitVisible(chromedp.CSS("#list-pane")))
	until(t, ctx, "live connection", `document.querySelector("#live").dataset.state === "up"`)
	eval[any](t, ctx, "window.notReloaded = true")

	contactSays(t, e, c.ID, "When is the shop open on Saturdays?")
	until(t, ctx, "the contact's message appears in the list without a reload",
		fmt.Sprintf(`(document.querySelector("#row-%s .last")||{}).textContent === "When is the shop open on Saturdays?" && window.notReloaded === true`, c.ID))

	step(t, ctx, "open the chat", chromedp.Click(chromedp.CSS("#row-"+c.ID+" a")),
		chromedp.WaitVisible(chromedp.CSS(`#chat[data-chat-id="`+c.ID+`"]`)))
	until(t, ctx, "the stream follows the open chat",
		fmt.Sprintf(`document.querySelector("#live").dataset.chat === %q && document.querySelector("#live").dataset.state === "up"`, c.ID))

	// A click that lands while the list is being redrawn follows the row's plain link (a
	// page load with the chat open); what follows must come without one.
	eval[any](t, ctx, "window.notReloaded = true")
	e.Clock.Advance(time.Second) // the run's debounce
	until(t, ctx, "the assistant's answer streams in",
		`[...document.querySelectorAll(".msg.role-assistant .text")].some(el => el.textContent.includes("Saturdays we open at ten")) && window.notReloaded === true`)
	if n := eval[string](t, ctx, `document.body.dataset.deltas || "0"`); n == "0" {
		t.Fatalf("the answer arrived without any streamed delta")
	}
	until(t, ctx, "the answer is final", `!document.querySelector(".msg.role-assistant.running")`)
	until(t, ctx, "citations shown", `!!document.querySelector(".msg.role-assistant .citations")`)

	e.Eventually(5*time.Second, "opening the chat marks it read", func() bool { return chatState(t, e, c.ID).State.AdminUnseenCount == 0 })
	until(t, ctx, "the list's unread badge goes", fmt.Sprintf(`!document.querySelector("#row-%s .unread")`, c.ID))
	unlabelled := eval[[]string](t, ctx, `[...document.querySelectorAll("input:not([type=hidden]), select, textarea, button")]
		.filter(el => !(el.labels && el.labels.length) && !el.getAttribute("aria-label") && !el.textContent.trim())
		.map(el => el.outerHTML.slice(0, 80))`)
	if len(unlabelled) > 0 {
		t.Fatalf("controls without a label: %v", unlabelled)
	}
	browsertest.Screenshot(t, ctx, "inbox-desktop", 1280)
	browsertest.Screenshot(t, ctx, "inbox-360", 360)
	if w := eval[int](t, ctx, "document.documentElement.scrollWidth"); w > 360 {
		t.Fatalf("at 360 px the page is %d px wide: it scrolls sideways", w)
	}
	step(t, ctx, "desktop again", chromedp.EmulateViewport(1280, 800))

	// A request without the CSRF token is refused, and changes nothing.
	status := eval[int](t, ctx, fmt.Sprintf(`fetch("/app/chats/%s/resolve", {method: "POST", headers: {"HX-Request": "true"}}).then(r => r.status)`, c.ID))
	if status != 403 || chatState(t, e, c.ID).State.State != "OPEN" {
		t.Fatalf("resolve without the CSRF token: %d, state %s", status, chatState(t, e, c.ID).State.State)
	}

	step(t, ctx, "take over", chromedp.Click(chromedp.CSS("#takeover")))
	until(t, ctx, "AI off after take over", `document.querySelector("#chat-ai").textContent === "AI off"`)
	if got := chatState(t, e, c.ID); got.State.AIEnabled || got.AssignedUserID != "" && got.State.AssignedUser.ID != owner.ID {
		t.Fatalf("after take over: ai %v assignee %+v", got.State.AIEnabled, got.State.AssignedUser)
	}

	step(t, ctx, "reply", chromedp.SetValue(chromedp.CSS("#reply-text"), "Hello Ana, a human here."), chromedp.Click(chromedp.CSS("#send")))
	until(t, ctx, "the reply shows", `[...document.querySelectorAll(".msg.role-admin .text")].some(el => el.textContent === "Hello Ana, a human here.")`)
	var ms []app.Message
	e.Do("GET", "/orgs/c/chats/"+c.ID+"/messages", e.AdminKey, nil).Expect(200).JSON(&ms)
	if last := ms[len(ms)-1]; last.Role != "admin" || app.StreamText(last) != "Hello Ana, a human here." {
		t.Fatalf("last message %s %q", last.Role, app.StreamText(last))
	}
	if n := eval[int](t, ctx, `document.querySelectorAll(".msg.role-admin").length`); n != 1 {
		t.Fatalf("the reply shows %d times", n)
	}

	step(t, ctx, "hand back", chromedp.Click(chromedp.CSS("#handback")))
	until(t, ctx, "AI on after hand back", `document.querySelector("#chat-ai").textContent === "AI answering"`)
	if got := chatState(t, e, c.ID); !got.State.AIEnabled {
		t.Fatal("AI still off after hand back")
	}

	step(t, ctx, "resolve", chromedp.Click(chromedp.CSS("#resolve")))
	until(t, ctx, "resolved", `document.querySelector("#chat-state").textContent === "closed"`)
	if got := chatState(t, e, c.ID); got.State.State != "CLOSED" {
		t.Fatalf("state %s after resolve", got.State.State)
	}
}

// A member whose role lacks inbox:write sees the conversation but no reply box and no
// actions, and a reply forged with a valid CSRF token is refused by the server.
func TestBrowserReadOnlyMemberCannotReply(t *testing.T) {
	t.Parallel()
	e := newLiveEnv(t)
	c := conversation(t, e, "Bob Read")
	contactSays(t, e, c.ID, "Is anyone there?")
	m := roleMember(t, e, "inbox:read", "contacts:read")
	ctx := browsertest.New(t)
	step(t, ctx, "invite link", chromedp.Navigate(e.Server.URL+link(t, e, m, "invite")),
		chromedp.SetValue(chromedp.CSS("#password"), testPassword), chromedp.SetValue(chromedp.CSS("#password_again"), testPassword),
		chromedp.Click(chromedp.CSS("#setup-submit")), chromedp.WaitVisible(chromedp.CSS("#list-pane")))
	step(t, ctx, "open the chat", chromedp.Click(chromedp.CSS("#row-"+c.ID+" a")),
		chromedp.WaitVisible(chromedp.CSS(`#chat[data-chat-id="`+c.ID+`"]`)), chromedp.WaitVisible(chromedp.CSS("#readonly-note")))
	for _, sel := range []string{"#composer", "#reply-text", "#takeover", "#resolve", "#handback"} {
		if eval[bool](t, ctx, fmt.Sprintf("!!document.querySelector(%q)", sel)) {
			t.Fatalf("a read-only member sees %s", sel)
		}
	}
	status := eval[int](t, ctx, fmt.Sprintf(`fetch("/app/chats/%s/reply", {method: "POST", headers: {"HX-Request": "true",
		"X-CSRF-Token": document.body.dataset.csrf, "Content-Type": "application/x-www-form-urlencoded"}, body: "text=forged"}).then(r => r.status)`, c.ID))
	if status != 403 {
		t.Fatalf("forged reply: %d", status)
	}
	var ms []app.Message
	e.Do("GET", "/orgs/c/chats/"+c.ID+"/messages", e.AdminKey, nil).Expect(200).JSON(&ms)
	for _, msg := range ms {
		if strings.Contains(app.StreamText(msg), "forged") {
			t.Fatal("the forged reply was stored")
		}
	}
}

// browserOwner signs the owner in through the set-up link in a fresh browser.
func browserOwner(t *testing.T, e *apitest.Env) context.Context {
	t.Helper()
	token, _, err := e.Runtime.SignIn.OwnerSetupLink(context.Background(), e.Org.ID)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.New(t)
	step(t, ctx, "sign in", chromedp.Navigate(e.Server.URL+"/app/setup?token="+token),
		chromedp.SetValue(chromedp.CSS("#password"), testPassword), chromedp.SetValue(chromedp.CSS("#password_again"), testPassword),
		chromedp.Click(chromedp.CSS("#setup-submit")), chromedp.WaitVisible(chromedp.CSS("#list-pane")))
	return ctx
}

// When the live connection drops the page says so; when it returns, the page says so and
// catches up with what changed meanwhile. A second tab sees the same changes live.
func TestBrowserShowsTheLiveConnectionDropAndReturn(t *testing.T) {
	t.Parallel()
	e := newLiveEnv(t)
	c := conversation(t, e, "Hal Offline")
	ctx := browserOwner(t, e)
	second := browsertest.NewTab(t, ctx)
	step(t, second, "second tab", chromedp.Navigate(e.Server.URL+"/app/"), chromedp.WaitVisible(chromedp.CSS("#list-pane")))
	for _, tab := range []context.Context{ctx, second} {
		until(t, tab, "live", `document.querySelector("#live").dataset.state === "up"`)
	}
	step(t, second, "the list alone, as a phone shows it", chromedp.EmulateViewport(360, 800))
	if w := eval[int](t, second, "document.documentElement.scrollWidth"); w > 360 {
		t.Fatalf("the list at 360 px is %d px wide", w)
	}
	step(t, second, "desktop again", chromedp.EmulateViewport(1280, 800))
	contactSays(t, e, c.ID, "first, live")
	for _, tab := range []context.Context{ctx, second} {
		until(t, tab, "a change reaches every tab", fmt.Sprintf(`(document.querySelector("#row-%s .last")||{}).textContent === "first, live"`, c.ID))
	}

	// A live change redraws the list but not the search box being typed in.
	step(t, ctx, "type a search", chromedp.Focus(chromedp.CSS("#search")), chromedp.SendKeys(chromedp.CSS("#search"), "Hal"))
	until(t, ctx, "the search filters", `location.search.includes("q=Hal")`)
	contactSays(t, e, c.ID, "typing meanwhile")
	until(t, ctx, "the change shows while typing", fmt.Sprintf(`(document.querySelector("#row-%s .last")||{}).textContent === "typing meanwhile"`, c.ID))
	if !eval[bool](t, ctx, `document.activeElement.id === "search" && document.querySelector("#search").value === "Hal"`) {
		t.Fatal("a live redraw took the search box's focus or text")
	}
	eval[any](t, ctx, `document.activeElement.blur()`)
	until(t, ctx, "the title counts the chats waiting for a human", `document.title === "(1) Inbox"`)
	step(t, ctx, "j opens the first conversation", chromedp.KeyEvent("j"), chromedp.WaitVisible(chromedp.CSS(`#chat[data-chat-id="`+c.ID+`"]`)))
	step(t, ctx, "? shows the shortcuts", chromedp.KeyEvent("?"))
	until(t, ctx, "the help dialog", `document.querySelector("#help").open`)
	step(t, ctx, "Escape closes it", chromedp.KeyEvent("\x1b"))
	until(t, ctx, "the help dialog closed", `!document.querySelector("#help").open`)

	e.Server.CloseClientConnections()
	until(t, ctx, "the drop shows", `document.querySelector("#live").dataset.state === "down" && document.querySelector("#live").textContent.startsWith("Reconnecting")`)
	contactSays(t, e, c.ID, "second, while down")
	until(t, ctx, "the return shows and the list catches up", fmt.Sprintf(
		`document.querySelector("#live").dataset.state === "up" && (document.querySelector("#row-%s .last")||{}).textContent === "second, while down"`, c.ID))
}
