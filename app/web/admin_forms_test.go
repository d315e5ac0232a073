package web_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

// uploadCSV posts a CSV to the import as htmx does: multipart, the CSRF token in the header.
func (b *tab) uploadCSV(path, csv string, fields ...string) answer {
	b.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if csv != "" {
		fw, _ := w.CreateFormFile("file", "people.csv")
		io.WriteString(fw, csv)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		w.WriteField(fields[i], fields[i+1])
	}
	w.Close()
	req, _ := http.NewRequest("POST", b.e.Server.URL+path, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Origin", b.e.Server.URL)
	req.Header.Set("X-CSRF-Token", b.csrf)
	req.Header.Set("HX-Request", "true")
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return answer{Status: res.StatusCode, Header: res.Header, Body: string(data)}
}

func checkedSum(t *testing.T, body string) string {
	t.Helper()
	const mark = `name="checked" value="`
	i := strings.Index(body, mark)
	if i < 0 {
		t.Fatalf("the dry run carries no checked hash: %.400s", body)
	}
	return body[i+len(mark) : i+len(mark)+64]
}

func countContacts(t *testing.T, e *apitest.Env, search string) int {
	t.Helper()
	var cs []app.Contact
	e.Do("GET", "/orgs/c/contacts?search="+url.QueryEscape(search), e.AdminKey, nil).Expect(200).JSON(&cs)
	return len(cs)
}

// The import writes only the very file a dry run was shown for; a role that reads contacts
// may check a file but not import it; a file that is not a CSV of contacts is refused on the
// file field (422, swapped in place by htmx).
func TestAdminImportNeedsTheDryRun(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	b := signedIn(t, e, e.Owner)
	b.get("/app/contacts").expect(t, 200)
	csv := "email,name\nlea@example.com,Lea Import\nmax@example.com,Max Import\n"
	a := b.uploadCSV("/app/contacts/import", csv).expect(t, http.StatusUnprocessableEntity)
	if !strings.Contains(a.Body, `id="import-file-error">has not been checked`) {
		t.Fatalf("an import without a dry run: %.400s", a.Body)
	}
	dry := b.uploadCSV("/app/contacts/import/dry", csv).expect(t, 200)
	if !strings.Contains(dry.Body, `id="count-created">2<`) || countContacts(t, e, "Import") != 0 {
		t.Fatalf("dry run: %.400s", dry.Body)
	}
	sum := checkedSum(t, dry.Body)
	other := csv + "zoe@example.com,Zoe Import\n"
	b.uploadCSV("/app/contacts/import", other, "checked", sum).expect(t, http.StatusUnprocessableEntity)
	if n := countContacts(t, e, "Import"); n != 0 {
		t.Fatalf("another file than the one checked wrote %d contacts", n)
	}
	b.uploadCSV("/app/contacts/import", csv, "checked", sum).expect(t, 200)
	if n := countContacts(t, e, "Import"); n != 2 {
		t.Fatalf("%d contacts after the import, want 2", n)
	}
	for name, bad := range map[string]string{
		"no file":      "",
		"no header":    "\n",
		"no column":    "colour,size\nred,9\n",
		"broken quote": "name\n\"Ann\n",
	} {
		a := b.uploadCSV("/app/contacts/import/dry", bad).expect(t, http.StatusUnprocessableEntity)
		if !strings.Contains(a.Body, `id="import-file-error"`) {
			t.Errorf("%s: %.300s", name, a.Body)
		}
	}
	reader := signedIn(t, e, roleMember(t, e, "inbox:read", "contacts:read"))
	reader.get("/app/contacts").expect(t, 200)
	rdry := reader.uploadCSV("/app/contacts/import/dry", "email\nnew@example.com\n").expect(t, 200)
	if strings.Contains(rdry.Body, `id="import-run"`) {
		t.Fatal("a read-only role is offered the import")
	}
	reader.uploadCSV("/app/contacts/import", "email\nnew@example.com\n", "checked", checkedSum(t, b.uploadCSV("/app/contacts/import/dry", "email\nnew@example.com\n").Body)).expect(t, http.StatusForbidden)
	if n := countContacts(t, e, "new@example.com"); n != 0 {
		t.Fatal("a read-only role imported")
	}
}

// Members and roles through the page: a role made with its permissions, granted to a
// member, edited; a held role cannot be deleted (the API's conflict, on the page); the
// member removed, then the role deleted.
func TestAdminMembersAndRoles(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	b := signedIn(t, e, e.Owner)
	b.get("/app/members").expect(t, 200)
	post := func(path string, form url.Values) answer {
		form.Set("csrf", b.csrf)
		return b.do("POST", path, form)
	}
	post("/app/roles", url.Values{"name": {"Support"}, "permissions": {"inbox:read", "inbox:write", "contacts:read"}}).expect(t, http.StatusSeeOther)
	var roles []app.Role
	e.Do("GET", "/orgs/c/roles", e.AdminKey, nil).Expect(200).JSON(&roles)
	if len(roles) != 1 || roles[0].Name != "Support" || !app.NewPermissionSet(roles[0].Permissions).Has("inbox:write") {
		t.Fatalf("roles: %+v", roles)
	}
	m := e.Member(e.AdminKey, "c", "Rita Role", "MEMBER")
	post("/app/members/"+m.ID, url.Values{"role": {roles[0].ID}}).expect(t, http.StatusSeeOther)
	var got app.Member
	e.Do("GET", "/orgs/c/members/"+m.ID, e.AdminKey, nil).Expect(200).JSON(&got)
	if got.Role != roles[0].ID {
		t.Fatalf("role after the change: %s", got.Role)
	}
	post("/app/roles/"+roles[0].ID, url.Values{"name": {"Support desk"}, "permissions": {"inbox:read"}}).expect(t, http.StatusSeeOther)
	var r app.Role
	e.Do("GET", "/orgs/c/roles/"+roles[0].ID, e.AdminKey, nil).Expect(200).JSON(&r)
	if r.Name != "Support desk" || app.NewPermissionSet(r.Permissions).Has("inbox:write") {
		t.Fatalf("role after the edit: %+v", r)
	}
	a := post("/app/roles/"+r.ID+"/delete", url.Values{}).expect(t, http.StatusConflict)
	if !strings.Contains(a.Body, `id="form-error">1 member(s) still hold this role`) {
		t.Fatalf("deleting a held role: %.600s", a.Body)
	}
	// From the button (htmx, which asked first) the refusal is a line for the alert area.
	if a := b.htmx("POST", "/app/roles/"+r.ID+"/delete", nil).expect(t, http.StatusConflict); strings.Contains(a.Body, "<") || !strings.Contains(a.Body, "still hold this role") {
		t.Fatalf("htmx delete of a held role: %.300s", a.Body)
	}
	// The only admin cannot be demoted (the API's rule, shown on the page).
	a = post("/app/members/"+e.Owner.ID, url.Values{"role": {"MEMBER"}})
	if a.Status < 400 || !strings.Contains(a.Body, `id="form-error"`) {
		t.Fatalf("demoting the last admin: %d %.300s", a.Status, a.Body)
	}
	post("/app/members/"+m.ID+"/delete", url.Values{}).expect(t, http.StatusSeeOther)
	e.Do("GET", "/orgs/c/members/"+m.ID, e.AdminKey, nil).Expect(404)
	post("/app/roles/"+r.ID+"/delete", url.Values{}).expect(t, http.StatusSeeOther)
	e.Do("GET", "/orgs/c/roles/"+r.ID, e.AdminKey, nil).Expect(404)
}

// A webhook disabled after failures shows why; saving it enabled clears the reason, as the
// API's PATCH does.
func TestAdminWebhookDisabledReason(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	w := e.Webhook(e.AdminKey, "c", "https://hooks.example.com/in", "contact.blocked")
	store := e.Runtime.Service.Store()
	err := store.Write(context.Background(), func(tx app.Tx) error {
		got, err := tx.GetWebhook(e.Org.ID, w.ID)
		if err != nil {
			return err
		}
		reason := "30 deliveries in a row failed; last error: HTTP 500"
		got.Enabled, got.DisabledReason, got.ConsecutiveFailures = false, &reason, 30
		return tx.SetWebhookHealth(got)
	})
	if err != nil {
		t.Fatal(err)
	}
	b := signedIn(t, e, e.Owner)
	page := b.get("/app/webhooks/"+w.ID).expect(t, 200)
	if !strings.Contains(page.Body, `id="disabled-reason">Disabled: 30 deliveries in a row failed; last error: HTTP 500`) {
		t.Fatalf("no disabled reason: %.1500s", page.Body)
	}
	b.do("POST", "/app/webhooks/"+w.ID, url.Values{"csrf": {b.csrf}, "name": {"hook"}, "url": {w.URL}, "events": {"contact.blocked", "chat.assigned"}, "enabled": {"on"}}).expect(t, http.StatusSeeOther)
	var after app.Webhook
	e.Do("GET", "/orgs/c/webhooks/"+w.ID, e.AdminKey, nil).Expect(200).JSON(&after)
	if !after.Enabled || after.DisabledReason != nil || len(after.Events) != 2 {
		t.Fatalf("after enabling: %+v", after)
	}
}

// The usage page shows the balance and the ledger by day and model with its total.
func TestAdminUsage(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	if _, err := e.Runtime.Service.SetBalance(context.Background(), e.Org.ID, 12.5); err != nil {
		t.Fatal(err)
	}
	err := e.Runtime.Service.Store().Write(context.Background(), func(tx app.Tx) error {
		return tx.RecordUsage([]app.UsageEntry{
			{OrgID: e.Org.ID, Day: "2026-01-01", Model: "gpt-test", UsageCounter: app.UsageCounter{InputTokens: 1200, OutputTokens: 300}, Cost: 0.25, CreatedAt: app.Time{Time: e.Clock.Now()}},
			{OrgID: e.Org.ID, Day: "2026-01-02", Model: "claude-test", UsageCounter: app.UsageCounter{InputTokens: 10, OutputTokens: 5}, Cost: 0.5, CreatedAt: app.Time{Time: e.Clock.Now()}},
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	b := signedIn(t, e, e.Owner)
	a := b.get("/app/usage?from=2026-01-01&to=2026-01-02").expect(t, 200)
	for _, want := range []string{`id="balance">12.5<`, "<td>2026-01-01</td><td>gpt-test</td>", "<td>1200</td>", "<td>2026-01-02</td><td>claude-test</td>", "<td>0.75</td>"} {
		if !strings.Contains(a.Body, want) {
			t.Errorf("usage page lacks %s", want)
		}
	}
	if a := b.get("/app/usage?from=2026-01-02&to=2026-01-02").expect(t, 200); strings.Contains(a.Body, "gpt-test") {
		t.Error("the day filter does not apply")
	}
}

// Contacts come 50 a page, with the search kept in the page links.
func TestAdminContactsPages(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	var items []map[string]any
	for i := range 51 {
		items = append(items, map[string]any{"user_id": fmt.Sprint("paged-", i), "name": "Paged Person"})
	}
	e.Do("POST", "/orgs/c/contacts/bulk", e.AdminKey, map[string]any{"channels": items}).Expect(200)
	b := signedIn(t, e, e.Owner)
	first := b.get("/app/contacts?q=Paged").expect(t, 200)
	if n := strings.Count(first.Body, `<tr id="contact-`); n != 50 || !strings.Contains(first.Body, `id="page-next" href="/app/contacts?page=2&amp;q=Paged&amp;segment="`) {
		t.Fatalf("page 1: %d rows; %.300s", n, first.Body[strings.Index(first.Body, "contacts,"):])
	}
	second := b.get("/app/contacts?page=2&q=Paged&segment=").expect(t, 200)
	if n := strings.Count(second.Body, `<tr id="contact-`); n != 1 || !strings.Contains(second.Body, `id="page-prev"`) || strings.Contains(second.Body, `id="page-next"`) {
		t.Fatalf("page 2: %d rows", n)
	}
}

// A contact joins a segment and leaves it from the contacts list, which comes back with
// the search the member was on.
func TestAdminContactSegments(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	var seg app.Segment
	e.Do("POST", "/orgs/c/segments", e.AdminKey, map[string]any{"name": "VIP"}).Expect(201).JSON(&seg)
	var ct app.Contact
	e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": "Nia Segment"}).Expect(201).JSON(&ct)
	b := signedIn(t, e, e.Owner)
	page := b.get("/app/contacts?q=Nia").expect(t, 200)
	if !strings.Contains(page.Body, `aria-label="Add Nia Segment to a segment"`) {
		t.Fatal("no way to add the contact to a segment")
	}
	a := b.do("POST", "/app/segment-members", url.Values{"csrf": {b.csrf}, "segment_id": {seg.ID}, "contact_id": {ct.ID}, "q": {"Nia"}}).expect(t, http.StatusSeeOther)
	if loc := a.Header.Get("Location"); loc != "/app/contacts?q=Nia" {
		t.Fatalf("back to %q", loc)
	}
	var got app.Contact
	e.Do("GET", "/orgs/c/contacts/"+ct.ID, e.AdminKey, nil).Expect(200).JSON(&got)
	if len(got.Segments) != 1 || got.Segments[0].ID != seg.ID {
		t.Fatalf("segments after the add: %+v", got.Segments)
	}
	if !strings.Contains(b.get("/app/contacts?q=Nia").Body, `aria-label="Remove Nia Segment from VIP"`) {
		t.Fatal("the segment is not shown on the contact's row")
	}
	b.do("POST", "/app/segment-members", url.Values{"csrf": {b.csrf}, "segment_id": {""}, "contact_id": {ct.ID}}).expect(t, http.StatusBadRequest)
	b.do("POST", "/app/segment-members/remove", url.Values{"csrf": {b.csrf}, "segment_id": {seg.ID}, "contact_id": {ct.ID}}).expect(t, http.StatusSeeOther)
	e.Do("GET", "/orgs/c/contacts/"+ct.ID, e.AdminKey, nil).Expect(200).JSON(&got)
	if len(got.Segments) != 0 {
		t.Fatalf("segments after the removal: %+v", got.Segments)
	}
}

// A broadcast's recipients narrow to one flag with the API's own filter; a bad filter is
// the API's 400.
func TestAdminBroadcastRecipientsFilter(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	var seg app.Segment
	e.Do("POST", "/orgs/c/segments", e.AdminKey, map[string]any{"name": "All"}).Expect(201).JSON(&seg)
	var ids []string
	for _, n := range []string{"Oli One", "Pam Two"} {
		var ct app.Contact
		e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": n, "channels": []map[string]any{{"type": "custom", "user_id": n}}}).Expect(201).JSON(&ct)
		ids = append(ids, ct.ID)
	}
	e.Do("POST", "/orgs/c/segments/"+seg.ID+"/contacts", e.AdminKey, map[string]any{"contact_ids": ids}).Expect(200)
	var bc app.Broadcast
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, map[string]any{"name": "News", "integration_id": "custom", "text": "hi", "segment_ids": []string{seg.ID}}).Expect(201).JSON(&bc)
	b := signedIn(t, e, e.Owner)
	all := b.get("/app/broadcasts/"+bc.ID).expect(t, 200)
	if !strings.Contains(all.Body, "Oli One") || !strings.Contains(all.Body, "Pam Two") {
		t.Fatalf("recipients: %.300s", all.Body)
	}
	e.WaitIdle()
	shown := 0
	for _, q := range []string{"is_sent=true", "is_sent=false"} {
		var rs []map[string]any
		e.Do("GET", "/orgs/c/broadcasts/recipients?broadcast_id="+bc.ID+"&"+q, e.AdminKey, nil).Expect(200).JSON(&rs)
		page := b.get("/app/broadcasts/"+bc.ID+"?"+q).expect(t, 200)
		got := strings.Count(page.Body, `<td class="flag">`) / len(app.RecipientFlags)
		if got != len(rs) {
			t.Fatalf("?%s shows %d recipients, the API %d", q, got, len(rs))
		}
		shown += got
	}
	if shown != 2 || !strings.Contains(b.get("/app/broadcasts/"+bc.ID+"?is_sent=true").Body, "<strong>sent</strong>") {
		t.Fatalf("sent and not sent show %d recipients in all, want 2", shown)
	}
	a := b.get("/app/broadcasts/"+bc.ID+"?is_sent=maybe").expect(t, http.StatusBadRequest)
	if !strings.Contains(a.Body, "is_sent must be true or false") {
		t.Fatalf("bad filter: %.300s", a.Body)
	}
}

// Rotating a webhook's secret shows the new one once; it is the one that signs from then on.
func TestAdminWebhookRotateSecret(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	w := e.Webhook(e.AdminKey, "c", "https://hooks.example.com/in", "contact.blocked")
	b := signedIn(t, e, e.Owner)
	b.get("/app/webhooks/"+w.ID).expect(t, 200)
	a := b.do("POST", "/app/webhooks/"+w.ID+"/rotate", url.Values{"csrf": {b.csrf}}).expect(t, 200)
	const mark = `id="new-secret" type="text" readonly value="`
	i := strings.Index(a.Body, mark)
	if i < 0 {
		t.Fatalf("no secret shown: %.500s", a.Body)
	}
	secret := a.Body[i+len(mark):]
	secret = secret[:strings.IndexByte(secret, '"')]
	ctx := context.Background()
	if ok, err := e.Runtime.Service.WebhookSecretCurrent(ctx, e.Org.ID, w.ID, secret); err != nil || !ok {
		t.Fatalf("the shown secret is not the endpoint's: %v %v", ok, err)
	}
	if ok, _ := e.Runtime.Service.WebhookSecretCurrent(ctx, e.Org.ID, w.ID, w.Secret); ok {
		t.Fatal("the old secret still signs")
	}
	if strings.Contains(b.get("/app/webhooks/"+w.ID).Body, secret) {
		t.Fatal("the secret is shown again")
	}
}
