package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

// settingsObjects makes one object of each settings area in the org of key, through the
// API: a member, a custom role, a key, a webhook (with a delivery), a segment and a broadcast.
type settingsObjects struct {
	Member, Role, Key, Webhook, Delivery, Segment, Contact, Broadcast string
}

func makeSettingsObjects(t *testing.T, e *apitest.Env, key string) settingsObjects {
	t.Helper()
	var o settingsObjects
	var m app.Member
	e.Do("POST", "/orgs/c/members", key, map[string]any{"name": "Obj Member", "email": "obj." + app.RandomBase62(5) + "@example.com", "role": "MEMBER"}).Expect(201).JSON(&m)
	o.Member = m.ID
	var r app.Role
	e.Do("POST", "/orgs/c/roles", key, map[string]any{"name": "obj role " + app.RandomBase62(4), "permissions": []string{"inbox:read"}}).Expect(201).JSON(&r)
	o.Role = r.ID
	var k app.NewKey
	e.Do("POST", "/orgs/c/keys", key, map[string]any{"name": "obj key"}).Expect(201).JSON(&k)
	o.Key = k.ID
	var w app.Webhook
	e.Do("POST", "/orgs/c/webhooks", key, map[string]any{"name": "obj hook", "url": "https://hooks.example.com/x", "events": []string{"contact.blocked"}}).Expect(201).JSON(&w)
	o.Webhook = w.ID
	var seg app.Segment
	e.Do("POST", "/orgs/c/segments", key, map[string]any{"name": "obj seg"}).Expect(201).JSON(&seg)
	o.Segment = seg.ID
	var ct app.Contact
	e.Do("POST", "/orgs/c/contacts", key, map[string]any{"name": "Obj Contact", "channels": []map[string]any{{"type": "custom", "user_id": "obj-" + app.RandomBase62(5)}}}).Expect(201).JSON(&ct)
	o.Contact = ct.ID
	e.Do("POST", "/orgs/c/segments/"+seg.ID+"/contacts", key, map[string]any{"contact_ids": []string{ct.ID}}).Expect(200)
	var b app.Broadcast
	e.Do("POST", "/orgs/c/broadcasts", key, map[string]any{"name": "obj news", "integration_id": "custom", "text": "hi", "segment_ids": []string{seg.ID}}).Expect(201).JSON(&b)
	o.Broadcast = b.ID
	e.Do("PATCH", "/orgs/c/contacts/"+ct.ID, key, map[string]any{"blocked": true}).Expect(200) // a contact.blocked delivery
	e.Eventually(5e9, "a delivery", func() bool {
		var ds []app.Delivery
		e.Do("GET", "/orgs/c/webhooks/"+w.ID+"/deliveries", key, nil).Expect(200).JSON(&ds)
		if len(ds) > 0 {
			o.Delivery = ds[0].ID
		}
		return o.Delivery != ""
	})
	return o
}

// postRoutes are every POST route of the settings pages with a form that would change
// something if it were accepted.
func postRoutes(o settingsObjects) map[string]url.Values {
	return map[string]url.Values{
		"/app/members":                           {"name": {"Forged"}, "email": {"forged@example.com"}, "role": {"MEMBER"}},
		"/app/members/" + o.Member:               {"role": {"ADMIN"}},
		"/app/members/" + o.Member + "/delete":   {},
		"/app/roles":                             {"name": {"forged"}, "permissions": {"inbox:read"}},
		"/app/roles/" + o.Role:                   {"name": {"forged"}, "permissions": {"inbox:read"}},
		"/app/roles/" + o.Role + "/delete":       {},
		"/app/keys":                              {"name": {"forged"}},
		"/app/keys/" + o.Key + "/rotate":         {},
		"/app/keys/" + o.Key + "/delete":         {},
		"/app/webhooks":                          {"name": {"forged"}, "url": {"https://x.example.com"}, "events": {"contact.blocked"}},
		"/app/webhooks/" + o.Webhook:             {"name": {"forged"}, "url": {"https://x.example.com"}, "events": {"contact.blocked"}},
		"/app/webhooks/" + o.Webhook + "/delete": {},
		"/app/webhooks/" + o.Webhook + "/test":   {},
		"/app/webhooks/" + o.Webhook + "/rotate": {},
		"/app/webhooks/" + o.Webhook + "/deliveries/" + o.Delivery + "/replay": {},
		"/app/segments":                          {"name": {"forged"}},
		"/app/segments/" + o.Segment + "/delete": {},
		"/app/segment-members":                   {"segment_id": {o.Segment}, "contact_id": {o.Contact}},
		"/app/segment-members/remove":            {"segment_id": {o.Segment}, "contact_id": {o.Contact}},
		"/app/broadcasts":                        {"name": {"forged"}, "integration_id": {"custom"}, "text": {"x"}, "segment_ids": {o.Segment}},
	}
}

// A role that reads every settings area but writes none sees each page without its forms,
// and every POST is refused 403 with a valid session and CSRF token, changing nothing.
func TestAdminReadOnlyRole(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	o := makeSettingsObjects(t, e, e.AdminKey)
	b := signedIn(t, e, roleMember(t, e, "inbox:read", "members:read", "keys:read", "webhooks:read", "contacts:read", "broadcasts:read", "org:read"))
	for page, forms := range map[string][]string{
		"/app/members":               {`id="invite-submit"`, `id="role-submit"`, `/delete"`},
		"/app/keys":                  {`id="key-submit"`, `/rotate"`},
		"/app/webhooks":              {`id="hook-submit"`},
		"/app/webhooks/" + o.Webhook: {`id="hook-save"`, `id="hook-test"`, `class="replay"`},
		"/app/contacts":              {`id="segment-submit"`},
		"/app/broadcasts":            {`id="broadcast-submit"`},
	} {
		a := b.get(page).expect(t, 200)
		if !strings.Contains(a.Body, `id="readonly-note"`) {
			t.Errorf("%s: no read-only note", page)
		}
		for _, f := range forms {
			if strings.Contains(a.Body, f) {
				t.Errorf("%s offers %s to a read-only role", page, f)
			}
		}
	}
	b.get("/app/broadcasts/"+o.Broadcast).expect(t, 200)
	b.get("/app/usage").expect(t, 200)
	b.get("/app/orgs").expect(t, 200)
	for path, form := range postRoutes(o) {
		form.Set("csrf", b.csrf)
		a := b.do("POST", path, form)
		if a.Status != http.StatusForbidden || !strings.Contains(a.Body, ":write") {
			t.Errorf("POST %s by a read-only role: %d %.200s", path, a.Status, a.Body)
		}
	}
	// Nothing changed.
	var hooks []app.Webhook
	e.Do("GET", "/orgs/c/webhooks", e.AdminKey, nil).Expect(200).JSON(&hooks)
	if len(hooks) != 1 || hooks[0].Name != "obj hook" {
		t.Fatalf("webhooks after refused POSTs: %+v", hooks)
	}
	var keys []app.APIKey
	e.Do("GET", "/orgs/c/keys", e.AdminKey, nil).Expect(200).JSON(&keys)
	for _, k := range keys {
		if k.Name == "forged" || k.ID == o.Key && !k.RotatedAt.IsZero() {
			t.Fatalf("a refused POST changed the keys: %+v", k)
		}
	}
	e.Do("GET", "/orgs/c/members/"+o.Member, e.AdminKey, nil).Expect(200)
	// Without any of the areas, the pages themselves are refused.
	none := signedIn(t, e, roleMember(t, e, "inbox:read"))
	for _, page := range []string{"/app/keys", "/app/webhooks", "/app/contacts", "/app/broadcasts", "/app/usage", "/app/orgs"} {
		none.get(page).expect(t, http.StatusForbidden)
	}
	if home := none.get("/app/").Body; strings.Contains(home, `href="/app/keys"`) || strings.Contains(home, `href="/app/webhooks"`) {
		t.Fatal("the nav links pages the role cannot read")
	}
}

// Every new POST route needs the session's CSRF token and this site's Origin.
func TestAdminCSRF(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	o := makeSettingsObjects(t, e, e.AdminKey)
	b := signedIn(t, e, e.Owner)
	for path, form := range postRoutes(o) {
		if a := b.do("POST", path, form); a.Status != http.StatusForbidden || !strings.Contains(a.Body, "security token") {
			t.Errorf("POST %s without the CSRF token: %d %.200s", path, a.Status, a.Body)
		}
		form.Set("csrf", b.csrf)
		if a := b.do("POST", path, form, "Origin", "https://evil.example"); a.Status != http.StatusForbidden {
			t.Errorf("POST %s from another origin: %d", path, a.Status)
		}
		if a := b.do("POST", path, form, "Origin", "-"); a.Status != http.StatusForbidden {
			t.Errorf("POST %s without Origin: %d", path, a.Status)
		}
	}
	for _, path := range []string{"/app/contacts/import/dry", "/app/contacts/import", "/app/orgs/switch"} {
		if a := b.do("POST", path, url.Values{}); a.Status != http.StatusForbidden {
			t.Errorf("POST %s without the CSRF token: %d", path, a.Status)
		}
	}
	var keys []app.APIKey
	e.Do("GET", "/orgs/c/keys", e.AdminKey, nil).Expect(200).JSON(&keys)
	for _, k := range keys {
		if k.Name == "forged" {
			t.Fatal("a forged POST made a key")
		}
	}
}

// Another organization's objects are 404 on every route that names one, GET or POST, and
// switching to another tenant is a 404 too.
func TestAdminCrossOrg404(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	tenant, tenantKey := e.TenantWithAdmin("Other Tenant")
	o := makeSettingsObjects(t, e, tenantKey)
	b := signedIn(t, e, e.Owner)
	b.get("/app/members").expect(t, 200)
	checked := 0
	for path, form := range postRoutes(o) {
		switch path {
		case "/app/members", "/app/roles", "/app/keys", "/app/webhooks", "/app/segments", "/app/broadcasts":
			continue // these name no object: they make one in the member's own organization
		}
		checked++
		form.Set("csrf", b.csrf)
		if a := b.do("POST", path, form); a.Status != http.StatusNotFound {
			t.Errorf("POST %s of another tenant: %d %.200s", path, a.Status, a.Body)
		}
	}
	if checked != 14 {
		t.Fatalf("%d routes naming an object checked, want 14", checked)
	}
	// The import into another tenant's segment: unknown there, as the API's bulk says.
	a := b.uploadCSV("/app/contacts/import/dry", "email\nq@example.com\n", "segment_id", o.Segment).expect(t, http.StatusUnprocessableEntity)
	if !strings.Contains(a.Body, `id="import-segment-error">unknown segment`) {
		t.Errorf("import into another tenant's segment: %.300s", a.Body)
	}
	b.get("/app/webhooks/"+o.Webhook).expect(t, http.StatusNotFound)
	b.get("/app/broadcasts/"+o.Broadcast).expect(t, http.StatusNotFound)
	b.do("POST", "/app/orgs/switch", url.Values{"csrf": {b.csrf}, "org": {tenant.ID}}).expect(t, http.StatusNotFound)
	var hooks []app.Webhook
	e.Do("GET", "/orgs/c/webhooks", tenantKey, nil).Expect(200).JSON(&hooks)
	if len(hooks) != 1 || hooks[0].Name != "obj hook" {
		t.Fatalf("the other tenant's webhook changed: %+v", hooks)
	}
	e.Do("GET", "/orgs/c/members/"+o.Member, tenantKey, nil).Expect(200)
}

// Bad input on each form answers 400 with each field's error beside the field and the
// values typed kept; nothing is written.
func TestAdminFieldErrors(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	b := signedIn(t, e, e.Owner)
	b.get("/app/members").expect(t, 200)
	cases := []struct {
		path string
		form url.Values
		want []string
	}{
		{"/app/keys", url.Values{"name": {""}}, []string{`id="key-name-error">`}},
		{"/app/webhooks", url.Values{"name": {"Hook"}, "url": {"ftp://nope"}}, []string{`id="hook-url-error">`, `id="hook-events-error">`, `value="Hook"`}},
		{"/app/roles", url.Values{"name": {"Helpers"}, "permissions": {"inbox:fly"}}, []string{`id="role-perms-error">`, `value="Helpers"`}},
		{"/app/segments", url.Values{"name": {""}, "color": {"blue-ish"}}, []string{`id="seg-name-error">`, `id="seg-color-error">`}},
		{"/app/broadcasts", url.Values{"name": {""}}, []string{`id="bc-name-error">`, `id="bc-integration-error">`, `id="bc-text-error">`}},
		{"/app/members", url.Values{"name": {"Ann"}, "email": {"ann@"}}, []string{`id="inv-email-error">`, `value="Ann"`}},
	}
	for _, c := range cases {
		c.form.Set("csrf", b.csrf)
		a := b.do("POST", c.path, c.form)
		if a.Status != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400; %.300s", c.path, a.Status, a.Body)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(a.Body, w) {
				t.Errorf("%s: no %s in the answer", c.path, w)
			}
		}
	}
	a := b.get("/app/usage?from=yesterday").expect(t, http.StatusBadRequest)
	if !strings.Contains(a.Body, `id="usage-from-error">`) {
		t.Errorf("usage: no from error: %.300s", a.Body)
	}
	var keys, hooks []map[string]any
	e.Do("GET", "/orgs/c/keys", e.AdminKey, nil).Expect(200).JSON(&keys)
	e.Do("GET", "/orgs/c/webhooks", e.AdminKey, nil).Expect(200).JSON(&hooks)
	if len(hooks) != 0 || len(keys) != 1 {
		t.Fatalf("bad input wrote something: %d keys, %d webhooks", len(keys), len(hooks))
	}
}

// A parent's member switches to a sub-organization: the pages act on it with the member's
// role; a sub-organization's member cannot switch up to the parent; back home clears it.
func TestAdminSubOrgSwitch(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	sub, subKey := e.OrgWithAdmin("Branch")
	subAdmin := e.Member(subKey, "c", "Branch Person", "MEMBER")
	b := signedIn(t, e, e.Owner)
	page := b.get("/app/orgs").expect(t, 200)
	if !strings.Contains(page.Body, `id="org-`+sub.ID+`"`) {
		t.Fatalf("the sub-organization is not offered: %.500s", page.Body)
	}
	b.do("POST", "/app/orgs/switch", url.Values{"csrf": {b.csrf}, "org": {sub.ID}}).expect(t, http.StatusSeeOther)
	members := b.get("/app/members").expect(t, 200)
	if !strings.Contains(members.Body, "Branch Person") || strings.Contains(members.Body, "<td>"+e.Owner.Email+"</td>") || !strings.Contains(members.Body, `Acting on the sub-organization <strong>Branch</strong>`) {
		t.Fatalf("after the switch the members page is not the sub-organization's: %.800s", members.Body)
	}
	// A key made there needs a member of it, as the API says for a parent's key.
	a := b.do("POST", "/app/keys", url.Values{"csrf": {b.csrf}, "name": {"branch key"}}).expect(t, 400)
	if !strings.Contains(a.Body, `is required for a key of another organization`) {
		t.Fatalf("key without member_id in a sub-org: %.300s", a.Body)
	}
	b.do("POST", "/app/keys", url.Values{"csrf": {b.csrf}, "name": {"branch key"}, "member_id": {subAdmin.ID}}).expect(t, 200)
	var keys []app.APIKey
	e.Do("GET", "/orgs/c/keys", subKey, nil).Expect(200).JSON(&keys)
	if len(keys) != 2 {
		t.Fatalf("the sub-organization has %d keys, want 2", len(keys))
	}
	b.do("POST", "/app/orgs/switch", url.Values{"csrf": {b.csrf}, "org": {""}}).expect(t, http.StatusSeeOther)
	if home := b.get("/app/members").Body; !strings.Contains(home, "<td>"+e.Owner.Email+"</td>") || strings.Contains(home, `id="acting"`) {
		t.Fatal("back home still acts on the sub-organization")
	}
	// The sub-organization's own member cannot act on the parent, nor forge the cookie.
	inner := signedIn(t, e, e.Member(subKey, "c", "Inner Admin", "ADMIN"))
	inner.get("/app/members").expect(t, 200)
	inner.do("POST", "/app/orgs/switch", url.Values{"csrf": {inner.csrf}, "org": {e.Org.ID}}).expect(t, http.StatusNotFound)
	u, _ := url.Parse(e.Server.URL)
	inner.client.Jar.SetCookies(u, []*http.Cookie{{Name: "session-org", Value: e.Org.ID, Path: "/"}})
	if got := inner.get("/app/members").expect(t, 200).Body; strings.Contains(got, "<td>"+e.Owner.Email+"</td>") {
		t.Fatal("a forged organization cookie reached the parent")
	}
}
