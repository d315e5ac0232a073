package web_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/app/browsertest"
)

// apiStatus calls the JSON API with a bearer token and answers the status.
func apiStatus(t *testing.T, e *apitest.Env, token string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", e.Server.URL+"/orgs/c/members", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// shot screenshots a settings page at desktop width after checking every control of it has
// a label a screen reader can say.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	labelled(t, ctx, name)
	browsertest.Screenshot(t, ctx, name, 1280)
}

// labelled checks that every control of the page has a label a screen reader can say, for a
// state of a page whose picture the run already has (a screenshot costs the browser a
// full-page render and a PNG).
func labelled(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	unlabelled := eval[[]string](t, ctx, `[...document.querySelectorAll("input:not([type=hidden]), select, textarea, button")]
		.filter(el => !(el.labels && el.labels.length) && !el.getAttribute("aria-label") && !el.textContent.trim())
		.map(el => el.outerHTML.slice(0, 100))`)
	if len(unlabelled) > 0 {
		t.Fatalf("%s: controls without a label: %v", name, unlabelled)
	}
}

func value(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("value of %s: %v", sel, err)
	}
	return v
}

// The owner invites a member, whose one-time link signs them in in another browser; the member (MEMBER: no members:write, no webhooks:write) sees those pages
// read-only and a forged POST is refused. The owner creates an API key (a bad name first,
// shown beside the field), which works against the JSON API, rotates it (the old token
// fails, the new works) and deletes it (it fails).
func TestBrowserAdminMembersAndKeys(t *testing.T) {
	t.Parallel()
	e := newLiveEnv(t)
	ctx := browserOwner(t, e)
	base := e.Server.URL
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }

	step(t, ctx, "members page", chromedp.Navigate(base+"/app/members"), chromedp.WaitVisible(css("#invite-form")))
	step(t, ctx, "an invite without a name", chromedp.SetValue(css("#inv-email"), "gus@example.com"),
		chromedp.Click(css("#invite-submit")), chromedp.WaitVisible(css("#inv-name-error")))
	if v := value(t, ctx, "#inv-email"); v != "gus@example.com" {
		t.Fatalf("the email typed is lost after the error: %q", v)
	}
	labelled(t, ctx, "settings-members-field-errors")
	step(t, ctx, "invite", chromedp.SetValue(css("#inv-name"), "Gus Newhire"), chromedp.Click(css("#invite-submit")), chromedp.WaitVisible(css("#new-link")))
	link := value(t, ctx, "#new-link")
	link = base + link[strings.Index(link, "/app/setup?token="):] // the link is on http.public_url, which the test server is not
	shot(t, ctx, "settings-members")

	gus := browsertest.New(t) // another browser: its own cookies
	step(t, gus, "the invite link in another browser", chromedp.Navigate(link),
		chromedp.SetValue(css("#password"), testPassword), chromedp.SetValue(css("#password_again"), testPassword),
		chromedp.Click(css("#setup-submit")), chromedp.WaitVisible(css("#list-pane")))
	until(t, gus, "signed in as the new member", `document.querySelector(".me").textContent === "Gus Newhire"`)
	step(t, gus, "members, read-only", chromedp.Navigate(base+"/app/members"), chromedp.WaitVisible(css("#readonly-note")))
	if eval[bool](t, gus, `!!document.querySelector("#invite-form, #role-new, form[action$='/delete']")`) {
		t.Fatal("a member without members:write is offered the members forms")
	}
	labelled(t, gus, "settings-members-readonly")
	step(t, gus, "webhooks, read-only", chromedp.Navigate(base+"/app/webhooks"), chromedp.WaitVisible(css("#readonly-note")))
	if eval[bool](t, gus, `!!document.querySelector("#hook-form")`) {
		t.Fatal("a member without webhooks:write is offered the webhook form")
	}
	status := eval[int](t, gus, `fetch("/app/webhooks", {method: "POST", headers: {"Content-Type": "application/x-www-form-urlencoded"},
		body: "csrf=" + encodeURIComponent(document.body.dataset.csrf) + "&name=x&url=https://x.example.com&events=contact.blocked"}).then(r => r.status)`)
	if status != 403 {
		t.Fatalf("a forged webhook POST: %d", status)
	}

	step(t, ctx, "keys page", chromedp.Navigate(base+"/app/keys"), chromedp.WaitVisible(css("#key-form")))
	step(t, ctx, "a key without a name", chromedp.Click(css("#key-submit")), chromedp.WaitVisible(css("#key-name-error")))
	step(t, ctx, "create a key", chromedp.SetValue(css("#key-name"), "CI deploy"), chromedp.Click(css("#key-submit")), chromedp.WaitVisible(css("#new-token")))
	token := value(t, ctx, "#new-token")
	if !strings.HasPrefix(token, app.TokenPrefix) || apiStatus(t, e, token) != 200 {
		t.Fatalf("the new key %q does not work against the API", token)
	}
	shot(t, ctx, "settings-keys")
	var keys []app.APIKey
	e.Do("GET", "/orgs/c/keys", e.AdminKey, nil).Expect(200).JSON(&keys)
	id := ""
	for _, k := range keys {
		if k.Name == "CI deploy" {
			id = k.ID
		}
	}
	step(t, ctx, "the keys again", chromedp.Navigate(base+"/app/keys"), chromedp.WaitVisible(css("#key-form")))
	if eval[bool](t, ctx, `!!document.querySelector("#new-token") || document.body.innerHTML.includes(`+fmt.Sprintf("%q", token)+`)`) {
		t.Fatal("the token is shown again")
	}
	step(t, ctx, "rotate", chromedp.Click(css("#key-"+id+" .rotate")), chromedp.WaitVisible(css("#new-token")))
	rotated := value(t, ctx, "#new-token")
	if rotated == token || apiStatus(t, e, token) != 401 || apiStatus(t, e, rotated) != 200 {
		t.Fatalf("after rotation: old %d, new %d", apiStatus(t, e, token), apiStatus(t, e, rotated))
	}
	if !eval[bool](t, ctx, `!!document.querySelector("#key-`+id+` form[hx-confirm]")`) {
		t.Fatal("deleting a key does not ask first")
	}
	eval[any](t, ctx, `window.confirm = () => true`) // say yes to the question
	step(t, ctx, "delete", chromedp.Click(css("#key-"+id+" .delete")), chromedp.WaitNotPresent(css("#key-"+id)))
	if s := apiStatus(t, e, rotated); s != 401 {
		t.Fatalf("a deleted key answers %d", s)
	}
}

// A webhook made on the page, pointed at a local HTTPS receiver, gets an event; replaying
// the delivery from its page sends it again (the receiver sees it twice), and the test
// button sends a ping.
func TestBrowserAdminWebhookReplay(t *testing.T) {
	t.Parallel()
	e := newLiveEnv(t)
	rcv := apitest.NewReceiver(t)
	ctx := browserOwner(t, e)
	base := e.Server.URL
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	step(t, ctx, "webhooks page", chromedp.Navigate(base+"/app/webhooks"), chromedp.WaitVisible(css("#hook-form")))
	step(t, ctx, "create", chromedp.SetValue(css("#hook-name"), "CRM sync"), chromedp.SetValue(css("#hook-url"), rcv.URL+"/in"),
		chromedp.Click(css(`input[value="contact.blocked"]`)), chromedp.Click(css("#hook-submit")), chromedp.WaitVisible(css("#new-secret")))
	if s := value(t, ctx, "#new-secret"); len(s) < 16 {
		t.Fatalf("secret %q", s)
	}
	shot(t, ctx, "settings-webhooks")
	var hooks []app.Webhook
	e.Do("GET", "/orgs/c/webhooks", e.AdminKey, nil).Expect(200).JSON(&hooks)
	if len(hooks) != 1 || hooks[0].URL != rcv.URL+"/in" || len(hooks[0].Events) != 1 {
		t.Fatalf("webhooks: %+v", hooks)
	}
	var ct app.Contact
	e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": "Kim Block"}).Expect(201).JSON(&ct)
	e.Do("PATCH", "/orgs/c/contacts/"+ct.ID, e.AdminKey, map[string]any{"blocked": true}).Expect(200)
	first := rcv.Wait(t, 1, 10*time.Second)
	e.Eventually(10*time.Second, "the delivery is recorded", func() bool {
		ds := e.Deliveries(e.AdminKey, "c", hooks[0].ID, "")
		return len(ds) == 1 && len(ds[0].Attempts) == 1
	})
	step(t, ctx, "the webhook's page", chromedp.Navigate(base+"/app/webhooks/"+hooks[0].ID), chromedp.WaitVisible(css("#deliveries .replay")))
	step(t, ctx, "replay", chromedp.Click(css("#deliveries .replay")), chromedp.WaitVisible(css("#notice")))
	got := rcv.Wait(t, 2, 10*time.Second)
	if string(got[1].Body) != string(first[0].Body) {
		t.Fatalf("the replay sent another body:\n%s\n%s", first[0].Body, got[1].Body)
	}
	e.Eventually(10*time.Second, "the replay's attempt is recorded", func() bool {
		ds := e.Deliveries(e.AdminKey, "c", hooks[0].ID, "")
		return len(ds) == 2 && len(ds[0].Attempts) == 1 && len(ds[1].Attempts) == 1 && ds[0].EventID == ds[1].EventID
	})
	step(t, ctx, "send a test", chromedp.Click(css("#hook-test")), chromedp.WaitVisible(css("#test-result")))
	rcv.Wait(t, 3, 10*time.Second)
	step(t, ctx, "reload", chromedp.Navigate(base+"/app/webhooks/"+hooks[0].ID), chromedp.WaitVisible(css("#deliveries")))
	if n := eval[int](t, ctx, `document.querySelectorAll("#deliveries .attempts li").length`); n != 2 {
		t.Fatalf("the page shows %d attempts, want 2", n)
	}
	shot(t, ctx, "settings-webhook")
}

// A CSV is checked by a dry run (its counts shown, nothing written), then imported into a
// segment made on the page; the contacts appear; a broadcast to that segment is composed and
// its recipients listed with their flags; usage and the sub-organization switcher render.
func TestBrowserAdminImportAndBroadcast(t *testing.T) {
	t.Parallel()
	e := newLiveEnv(t)
	sub := e.SubOrg(e.AdminKey, "c", "Lisbon branch")
	ctx := browserOwner(t, e)
	base := e.Server.URL
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	step(t, ctx, "contacts page", chromedp.Navigate(base+"/app/contacts"), chromedp.WaitVisible(css("#segment-form")))
	step(t, ctx, "a segment", chromedp.SetValue(css("#seg-name"), "Newsletter"), chromedp.Click(css("#segment-submit")), chromedp.WaitVisible(css("#segments a")))
	var segs []app.Segment
	e.Do("GET", "/orgs/c/segments", e.AdminKey, nil).Expect(200).JSON(&segs)
	file := filepath.Join(t.TempDir(), "people.csv")
	csv := "name,email\nIda Import,ida@example.com\nJon Import,jon@example.com\nBad Row,not-an-email\n"
	if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "choose the file", chromedp.SetUploadFiles(css("#import-file"), []string{file}), chromedp.SetValue(css("#import-segment"), segs[0].ID))
	step(t, ctx, "dry run", chromedp.Click(css("#import-dry")), chromedp.WaitVisible(css("#dry-run")))
	counts := eval[string](t, ctx, `["created","updated","invalid"].map(k => document.querySelector("#count-" + k).textContent).join(",")`)
	if counts != "2,0,1" {
		t.Fatalf("dry run counts %s, want 2,0,1", counts)
	}
	if !eval[bool](t, ctx, `document.querySelector("#dry-run").textContent.includes("line 4")`) {
		t.Fatal("the dry run does not name the bad row's line")
	}
	var before []app.Contact
	e.Do("GET", "/orgs/c/contacts?search=Import", e.AdminKey, nil).Expect(200).JSON(&before)
	if len(before) != 0 {
		t.Fatalf("the dry run wrote %d contacts", len(before))
	}
	labelled(t, ctx, "settings-contacts-dry-run")
	step(t, ctx, "import", chromedp.Click(css("#import-run")), chromedp.WaitVisible(css("#imported")))
	step(t, ctx, "the list", chromedp.Click(css("#import-reload")), chromedp.WaitVisible(css("#contacts")))
	if !eval[bool](t, ctx, `[...document.querySelectorAll("#contacts tr")].some(r => r.textContent.includes("Ida Import") && r.textContent.includes("Newsletter"))`) {
		t.Fatal("the imported contact is not listed with its segment")
	}
	var ida []app.Contact
	e.Do("GET", "/orgs/c/contacts?search=Ida", e.AdminKey, nil).Expect(200).JSON(&ida)
	step(t, ctx, "search", chromedp.SetValue(css("#contact-search"), "Jon"), chromedp.Click(css("#contact-search-submit")),
		chromedp.WaitNotPresent(css("#contact-"+ida[0].ID)), chromedp.WaitVisible(css("#contacts")))
	if rows := eval[int](t, ctx, `document.querySelectorAll("#contacts tbody tr").length`); rows != 1 {
		t.Fatalf("search Jon: %d rows: %s", rows, eval[string](t, ctx, `document.querySelector("#contacts").innerText`))
	}
	shot(t, ctx, "settings-contacts")
	step(t, ctx, "a contact's page", chromedp.Click(css("#contacts tbody a")), chromedp.WaitVisible(css("#contact-edit")))
	step(t, ctx, "a WhatsApp number", chromedp.SetValue(css("#contact-channel-phone"), "+351 912 345 678"),
		chromedp.Click(css("#contact-channel-submit")), chromedp.WaitVisible(css("#contact-saved")))
	if !eval[bool](t, ctx, `document.querySelector("#contact-channels").textContent.includes("whatsapp")`) {
		t.Fatalf("the contact's channels: %s", eval[string](t, ctx, `document.querySelector("#contact-channels").innerText`))
	}
	shot(t, ctx, "settings-contact")

	step(t, ctx, "broadcasts page", chromedp.Navigate(base+"/app/broadcasts"), chromedp.WaitVisible(css("#broadcast-form")))
	step(t, ctx, "compose", chromedp.SetValue(css("#bc-name"), "Spring news"), chromedp.SetValue(css("#bc-integration"), "custom"),
		chromedp.SetValue(css("#bc-text"), "Hello from the shop"), chromedp.Click(css(fmt.Sprintf(`input[value=%q]`, segs[0].ID))))
	labelled(t, ctx, "settings-broadcasts")
	step(t, ctx, "send", chromedp.Click(css("#broadcast-submit")), chromedp.WaitVisible(css("#recipients")))
	if rows := eval[int](t, ctx, `document.querySelectorAll("#recipients tbody tr").length`); rows != 2 {
		t.Fatalf("%d recipients, want 2", rows)
	}
	e.WaitIdle()
	step(t, ctx, "the recipients once sent", chromedp.Reload(), chromedp.WaitVisible(css("#recipients")))
	var rs []map[string]any
	e.Do("GET", "/orgs/c/broadcasts/recipients", e.AdminKey, nil).Expect(200).JSON(&rs)
	want := 0
	for _, r := range rs {
		for _, f := range app.RecipientFlags {
			if r["is_"+f] == true {
				want++
			}
		}
	}
	if got := eval[int](t, ctx, `document.querySelectorAll("#recipients td.flag span").length`); got != want || want == 18 {
		t.Fatalf("the page ticks %d flags, the API sets %d (of 18)", got, want)
	}
	shot(t, ctx, "settings-broadcast")

	step(t, ctx, "usage", chromedp.Navigate(base+"/app/usage"), chromedp.WaitVisible(css("#balance")))
	shot(t, ctx, "settings-usage")
	step(t, ctx, "organizations", chromedp.Navigate(base+"/app/orgs"), chromedp.WaitVisible(css("#org-"+sub.ID)))
	step(t, ctx, "switch", chromedp.Click(css("#org-"+sub.ID+" .switch")), chromedp.WaitVisible(css("#acting")))
	shot(t, ctx, "settings-orgs")
	step(t, ctx, "the sub-organization's contacts", chromedp.Navigate(base+"/app/contacts"), chromedp.WaitVisible(css("#contacts")))
	if eval[bool](t, ctx, `document.querySelector("#contacts").textContent.includes("Ida Import")`) {
		t.Fatal("after the switch the contacts page still shows the parent's contacts")
	}
}
