package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"wsapi/app"
	"wsapi/app/browsertest"
)

// The owner creates an assistant on its page, a bad setting shows its error beside the
// field, a knowledge file uploaded by the file input and another dropped on the page are
// PROCESSED before their eyes, the search box finds what the assistant would; a widget added
// on the channels page shows its identity key once and its preview, and its snippet, copied
// from the page onto a site of another origin, opens the chat there. Screenshots of each page.
func TestBrowserAssistantSettingsAssistantKnowledgeWidget(t *testing.T) {
	t.Parallel()
	e := newLiveEnv(t)
	ctx := browserOwner(t, e)
	base := e.Server.URL

	step(t, ctx, "assistants page", chromedp.Navigate(base+"/app/assistants"), chromedp.WaitVisible(chromedp.CSS("#new-assistant")))
	step(t, ctx, "create an assistant", chromedp.SetValue(chromedp.CSS("#a-name"), "Nova"),
		chromedp.SetValue(chromedp.CSS("#a-model"), "builtin:retrieval"),
		chromedp.SetValue(chromedp.CSS("#a-instructions"), "Answer from the shop's notes."),
		chromedp.Click(chromedp.CSS("#create-assistant")), chromedp.WaitVisible(chromedp.CSS("#assistant-form")))
	var as []app.Assistant
	e.Do("GET", "/orgs/c/assistants", e.AdminKey, nil).Expect(200).JSON(&as)
	if len(as) != 1 || as[0].Name != "Nova" || as[0].Config.Model != "builtin:retrieval" || as[0].Config.Instructions != "Answer from the shop's notes." {
		t.Fatalf("assistant after the form: %+v", as)
	}
	asst := as[0].ID
	browsertest.Screenshot(t, ctx, "settings-assistant", 1280)
	step(t, ctx, "the list", chromedp.Navigate(base+"/app/assistants"), chromedp.WaitVisible(chromedp.CSS(`#assistants a[href="/app/assistants/`+asst+`"]`)))
	browsertest.Screenshot(t, ctx, "settings-assistants", 1280)
	step(t, ctx, "back to the assistant", chromedp.Click(chromedp.CSS(`#assistants a[href="/app/assistants/`+asst+`"]`)), chromedp.WaitVisible(chromedp.CSS("#assistant-form")))

	step(t, ctx, "a bad time zone", chromedp.SetValue(chromedp.CSS("#a-timezone"), "Mars/Olympus"),
		chromedp.Click(chromedp.CSS("#save-assistant")), chromedp.WaitVisible(chromedp.CSS(`[data-field="config.timezone"]`)))
	if v := eval[string](t, ctx, `document.querySelector("#a-timezone").value`); v != "Mars/Olympus" {
		t.Fatalf("the form lost what was typed: %q", v)
	}
	if !eval[bool](t, ctx, `document.querySelector("#a-timezone").nextElementSibling.dataset.field === "config.timezone"`) {
		t.Fatal("the error is not beside its field")
	}
	step(t, ctx, "fix and save", chromedp.SetValue(chromedp.CSS("#a-timezone"), "Europe/Lisbon"),
		chromedp.Click(chromedp.CSS("#config-tools-human")), chromedp.Click(chromedp.CSS("#save-assistant")), chromedp.WaitVisible(chromedp.CSS("#saved")))
	var a app.Assistant
	e.Do("GET", "/orgs/c/assistants/"+asst, e.AdminKey, nil).Expect(200).JSON(&a)
	if a.Config.Timezone != "Europe/Lisbon" || !a.Config.Conversation.EnableTransferToHumanTool {
		t.Fatalf("after save: %+v", a.Config)
	}

	file := filepath.Join(t.TempDir(), "hours.md")
	if err := os.WriteFile(file, []byte("# Hours\n\nThe shop opens at nine and closes at five."), 0o600); err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "knowledge page", chromedp.Navigate(base+"/app/assistants/"+asst+"/knowledge"), chromedp.WaitVisible(chromedp.CSS("#k-file-form")))
	step(t, ctx, "upload by the file input", chromedp.SetUploadFiles(chromedp.CSS("#k-file"), []string{file}), chromedp.Click(chromedp.CSS("#k-upload")))
	untilAcross(t, ctx, "the file is listed and becomes PROCESSED", `[...document.querySelectorAll("#k-list tr")].some(r => r.textContent.includes("hours.md") && r.dataset.status === "PROCESSED")`)
	eval[any](t, ctx, `(() => { const dt = new DataTransfer();
		dt.items.add(new File(["Parking is free behind the shop."], "parking.txt", {type: "text/plain"}));
		document.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true})); })()`)
	untilAcross(t, ctx, "the dropped file becomes PROCESSED", `[...document.querySelectorAll("#k-list tr")].some(r => r.textContent.includes("parking.txt") && r.dataset.status === "PROCESSED")`)
	step(t, ctx, "search", chromedp.SendKeys(chromedp.CSS("#k-search"), "parking"))
	until(t, ctx, "the search shows what the assistant would find", `(document.querySelector("#k-results")||{textContent:""}).textContent.includes("Parking is free")`)
	browsertest.Screenshot(t, ctx, "settings-knowledge", 1280)

	step(t, ctx, "channels page", chromedp.Navigate(base+"/app/assistants/"+asst+"/channels"), chromedp.WaitVisible(chromedp.CSS("#add-internal summary")))
	step(t, ctx, "add a widget", chromedp.Click(chromedp.CSS("#add-internal summary")), chromedp.SetValue(chromedp.CSS("#new-internal-name"), "Shop site"),
		chromedp.Click(chromedp.CSS("#new-internal-submit")), chromedp.WaitVisible(chromedp.CSS("#secret-key")))
	key := eval[string](t, ctx, `document.querySelector("#secret-key").value`)
	snippet := eval[string](t, ctx, `document.querySelector(".snippet").value`)
	if !strings.HasPrefix(key, "wsk_") || !strings.Contains(snippet, "data-integration=") {
		t.Fatalf("key %q snippet %q", key, snippet)
	}
	until(t, ctx, "the live preview shows the widget", `(() => { const f = document.querySelector("iframe.preview");
		return !!(f && f.contentDocument && f.contentDocument.querySelector("#text")); })()`)
	browsertest.Screenshot(t, ctx, "settings-channels", 1280)
	step(t, ctx, "reload", chromedp.Navigate(base+"/app/assistants/"+asst+"/channels"), chromedp.WaitVisible(chromedp.CSS(".snippet")))
	if eval[bool](t, ctx, `document.body.innerHTML.includes(`+fmt.Sprintf("%q", key)+`)`) {
		t.Fatal("the identity key is shown again")
	}

	// The snippet names the server by http.public_url; the test server listens elsewhere.
	snippet = regexp.MustCompile(`src="[^"]*/widget\.js"`).ReplaceAllString(snippet, `src="`+base+`/widget.js"`)
	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Shop</title></head><body><h1>The shop</h1>%s</body></html>`, snippet)
	}))
	t.Cleanup(shop.Close)
	step(t, ctx, "the shop embeds the snippet", chromedp.Navigate(shop.URL), chromedp.WaitVisible(chromedp.CSS("button[data-appwidget=launcher]")),
		chromedp.Click(chromedp.CSS("button[data-appwidget=launcher]")))
	inFrame(t, ctx, "#text")
}

// untilAcross is until for a condition met after the page navigates (an upload's answer
// sends the browser to the page again): a poll cut by the navigation is started again.
func untilAcross(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, cancel := context.WithTimeout(ctx, 3*time.Second)
		_, err := chromedp.Run(c, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(20*time.Millisecond)))
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// inFrame waits until the widget's iframe on the page shows sel (a fresh iframe first holds
// about:blank, and the frame is of another origin: it is queried through its node).
func inFrame(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		nodes, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS("iframe[data-appwidget=frame]")))
		if err == nil && len(nodes) > 0 {
			c, cancel := context.WithTimeout(ctx, 2*time.Second)
			err = chromedp.Do(c, chromedp.WaitVisible(chromedp.CSS(sel), chromedp.FromNode(nodes[0])))
			cancel()
			if err == nil {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the widget did not open on the other origin: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A member whose role reads assistants and knowledge but writes neither sees each page
// without a form, and a POST forged with a valid CSRF token is refused.
func TestBrowserAssistantSettingsReadOnly(t *testing.T) {
	t.Parallel()
	e := newLiveEnv(t)
	asst, _, _ := settingsFixture(t, e)
	m := roleMember(t, e, "assistants:read", "knowledge:read", "inbox:read")
	ctx := browsertest.New(t)
	step(t, ctx, "invite link", chromedp.Navigate(e.Server.URL+link(t, e, m, "invite")),
		chromedp.SetValue(chromedp.CSS("#password"), testPassword), chromedp.SetValue(chromedp.CSS("#password_again"), testPassword),
		chromedp.Click(chromedp.CSS("#setup-submit")), chromedp.WaitVisible(chromedp.CSS("#list-pane")))
	for _, p := range []string{"", "/" + asst, "/" + asst + "/knowledge", "/" + asst + "/channels"} {
		step(t, ctx, "page "+p, chromedp.Navigate(e.Server.URL+"/app/assistants"+p), chromedp.WaitVisible(chromedp.CSS("#readonly-note")))
		if n := eval[int](t, ctx, `document.querySelectorAll("main form[method=post], main [hx-post], main button[type=submit]:not(#k-search-go)").length`); n != 0 {
			t.Fatalf("%s: a read-only member is offered %d forms or buttons", p, n)
		}
	}
	status := eval[int](t, ctx, fmt.Sprintf(`fetch("/app/assistants/%s", {method: "POST", headers: {"X-CSRF-Token": document.body.dataset.csrf,
		"Content-Type": "application/x-www-form-urlencoded"}, body: "name=Forged&config.model=auto:auto"}).then(r => r.status)`, asst))
	if status != 403 {
		t.Fatalf("forged save: %d", status)
	}
	var a app.Assistant
	e.Do("GET", "/orgs/c/assistants/"+asst, e.AdminKey, nil).Expect(200).JSON(&a)
	if a.Name != "Aria" {
		t.Fatalf("the forged save changed the assistant: %q", a.Name)
	}
}

// The playground: the owner starts a chat with the assistant, writes as a contact would,
// and sees the answer stream in from the page's live connection.
func TestBrowserAssistantSettingsPlayground(t *testing.T) {
	t.Parallel()
	e := newLiveEnv(t)
	var a app.Assistant
	e.Do("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": "Pia", "config": map[string]any{"model": "builtin:retrieval"}}).Expect(201).JSON(&a)
	var k struct{ ID string }
	e.Do("POST", "/orgs/c/assistants/"+a.ID+"/knowledge/contents", e.AdminKey, map[string]any{"title": "Returns",
		"content": map[string]any{"type": "TEXT", "text": "Returns are free within thirty days of purchase."}}).Expect(201).JSON(&k)
	e.Eventually(10*time.Second, "knowledge processed", func() bool {
		var got struct{ Status string }
		e.Do("GET", "/orgs/c/assistants/"+a.ID+"/knowledge/contents/"+k.ID, e.AdminKey, nil).Expect(200).JSON(&got)
		return got.Status == "PROCESSED"
	})
	ctx := browserOwner(t, e)
	step(t, ctx, "playground", chromedp.Navigate(e.Server.URL+"/app/assistants/"+a.ID+"/playground"),
		chromedp.Click(chromedp.CSS("#play-start")), chromedp.WaitVisible(chromedp.CSS("#play-text")))
	until(t, ctx, "live", `document.querySelector("#live").dataset.state === "up"`)
	step(t, ctx, "ask", chromedp.SetValue(chromedp.CSS("#play-text"), "Are returns free?"), chromedp.Click(chromedp.CSS("#play-send")))
	until(t, ctx, "the question shows", `[...document.querySelectorAll(".msg.role-user .text")].some(el => el.textContent === "Are returns free?")`)
	stop := make(chan struct{})
	go func() { // the run's debounce: the clock moves on until the answer is in
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				e.Clock.Advance(time.Second)
			}
		}
	}()
	defer close(stop)
	until(t, ctx, "the answer streams in", `[...document.querySelectorAll(".msg.role-assistant .text")].some(el => el.textContent.includes("thirty days"))`)
	browsertest.Screenshot(t, ctx, "settings-playground", 1280)
	if v := eval[string](t, ctx, `document.querySelector("#play-text").value`); v != "" {
		t.Fatalf("the box kept %q after sending", v)
	}
}
