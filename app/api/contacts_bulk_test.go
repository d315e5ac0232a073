package api_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

// ctBulkCase is one bulk item and the class it must land in.
type ctBulkCase struct {
	why   string
	item  app.BulkChannel
	class string // created, updated, invalid
	error string // a word the reason of an invalid item must hold
}

// ctBulkFixture holds the contacts the bulk items match.
type ctBulkFixture struct {
	known, crm, phone, byID, seg string
}

func ctBulkSetup(e *apitest.Env) ctBulkFixture {
	e.T.Helper()
	return ctBulkFixture{
		known: ctNamed(e, "Known", map[string]any{"type": "email", "email": "Known@Example.com"}),
		crm:   ctNamed(e, "CRM", map[string]any{"type": "custom", "user_id": "crm-42"}),
		phone: ctNamed(e, "Phone", map[string]any{"type": "sms", "phone": "+1 (555) 123-4567", "name": "Zed phone",
			"user_id": "zed-1", "email": "zed@example.com"}),
		byID: ctNamed(e, "By id"),
		seg:  ctSegment(e, e.AdminKey, "c", "Imported"),
	}
}

func (f ctBulkFixture) cases() []ctBulkCase {
	return []ctBulkCase{
		{"no user_id, email or phone", app.BulkChannel{Name: "Nobody"}, "invalid", "user_id"},
		{"not an email", app.BulkChannel{Email: "not-an-email"}, "invalid", "email"},
		{"email with a display name", app.BulkChannel{Email: "Bob <bob@example.com>"}, "invalid", "email"},
		{"phone of 4 digits", app.BulkChannel{Phone: "12-34"}, "invalid", "phone"},
		{"phone of 21 digits", app.BulkChannel{Phone: "+1 234 567 890 123 456 789 01"}, "invalid", "phone"},
		{"phone with letters", app.BulkChannel{Phone: "555-CALL-NOW"}, "invalid", "phone"},
		{"phone of 5 digits", app.BulkChannel{Phone: "12345"}, "created", ""},
		{"phone of 20 digits", app.BulkChannel{Phone: "+(1234) 5678-9012 3456 7890"}, "created", ""},
		{"unknown contact_id", app.BulkChannel{UserID: "u-6", ContactID: "ct_doesNotExist0000000000"}, "invalid", "contact_id"},
		{"new email", app.BulkChannel{Email: "new@example.com", Name: "New"}, "created", ""},
		{"same email, other case", app.BulkChannel{Email: "NEW@Example.COM"}, "invalid", "email"},
		{"same phone, other punctuation", app.BulkChannel{Phone: "(123) 45"}, "invalid", "phone"},
		{"new user_id", app.BulkChannel{UserID: "u-10"}, "created", ""},
		{"same user_id", app.BulkChannel{UserID: "u-10", Email: "other@example.com"}, "invalid", "user_id"},
		{"existing email, other case", app.BulkChannel{Email: "known@EXAMPLE.com", Name: "Known Person", Phone: "+49 30 1234567",
			UserID: "known-user"}, "updated", ""},
		{"existing user_id", app.BulkChannel{UserID: "crm-42", Email: "crm42@example.com"}, "updated", ""},
		{"existing phone, normalized", app.BulkChannel{Phone: "15551234567", Name: "Other name", UserID: "phone-user",
			Email: "other-zed@example.com"}, "updated", ""},
		{"existing contact_id", app.BulkChannel{ContactID: f.byID, Email: "byid@example.com"}, "updated", ""},
		{"fresh", app.BulkChannel{Email: " fresh@example.com ", Name: "Fresh"}, "created", ""},
	}
}

// ctBulkCall posts items to path and answers the decoded result and the raw body.
func ctBulkCall(e *apitest.Env, path string, items []app.BulkChannel, segs ...string) (app.BulkResult, map[string]any) {
	e.T.Helper()
	body := map[string]any{"channels": items}
	if segs != nil {
		body["segment_ids"] = segs
	}
	res := e.Do("POST", path, e.AdminKey, body).Expect(200)
	var r app.BulkResult
	res.JSON(&r)
	return r, res.Map()
}

func TestBulkClassifierRules(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	f := ctBulkSetup(e)
	cases := f.cases()
	items := make([]app.BulkChannel, len(cases))
	want := map[string][]app.BulkChannel{"created": {}, "updated": {}, "invalid": {}}
	var words []string
	for i, c := range cases {
		items[i] = c.item
		want[c.class] = append(want[c.class], c.item)
		if c.class == "invalid" {
			words = append(words, c.error)
		}
	}
	const contacts = "/orgs/c/contacts"
	before := e.Count(e.AdminKey, contacts)
	crmBefore := e.Do("GET", contacts+"/"+f.crm, e.AdminKey, nil).Expect(200).Body

	dry, raw := ctBulkCall(e, contacts+"/bulk/dry", items, f.seg)
	apitest.ExpectShape(t, "bulk result", raw, map[string]string{"created": "array", "updated": "array", "invalid": "array", "errors": "array"})
	for _, class := range []string{"created", "updated", "invalid"} {
		got := map[string][]app.BulkChannel{"created": dry.Created, "updated": dry.Updated, "invalid": dry.Invalid}[class]
		if !reflect.DeepEqual(got, want[class]) {
			t.Errorf("%s:\n got  %+v\n want %+v", class, got, want[class])
		}
	}
	for _, c := range cases { // name the failing rule, not only the class
		if !ctHolds(dry, c) {
			t.Errorf("%s: %+v is not %s", c.why, c.item, c.class)
		}
	}
	if len(dry.Errors) != len(dry.Invalid) {
		t.Fatalf("%d errors for %d invalid items", len(dry.Errors), len(dry.Invalid))
	}
	for i, w := range words {
		if i < len(dry.Errors) && !strings.Contains(dry.Errors[i], w) {
			t.Errorf("errors[%d] = %q for %+v: want it to mention %s", i, dry.Errors[i], dry.Invalid[i], w)
		}
	}
	// The dry run wrote nothing.
	if after := e.Count(e.AdminKey, contacts); after != before {
		t.Fatalf("contacts %d before the dry run, %d after", before, after)
	}
	if got := e.Do("GET", contacts+"/"+f.crm, e.AdminKey, nil).Expect(200).Body; string(got) != string(crmBefore) {
		t.Errorf("the dry run changed a matched contact:\n%s\n%s", crmBefore, got)
	}
	if n := e.Count(e.AdminKey, contacts+"?segment_id="+f.seg); n != 0 {
		t.Errorf("the dry run added %d contacts to the segment", n)
	}

	// The real import answers the very same classification.
	real, _ := ctBulkCall(e, contacts+"/bulk", items, f.seg)
	if a, b := ctJSON(t, dry), ctJSON(t, real); a != b {
		t.Fatalf("real import answered\n%s\nthe dry run\n%s", b, a)
	}
	if after := e.Count(e.AdminKey, contacts); after != before+len(want["created"]) {
		t.Errorf("contacts %d after the import, want %d", after, before+len(want["created"]))
	}

	// Created items are contacts with one custom channel holding the item.
	fresh := e.Do("GET", contacts+"?search=fresh%40example.com", e.AdminKey, nil).Expect(200).List()
	if len(fresh) != 1 || fresh[0]["name"] != "Fresh" || len(fresh[0]["channels"].([]any)) != 1 {
		t.Fatalf("created contact %v", fresh)
	}
	ch := fresh[0]["channels"].([]any)[0].(map[string]any)
	apitest.ExpectShape(t, "imported channel", ch, ctChannelShape)
	if ch["type"] != app.IntegrationCustom || ch["email"] != "fresh@example.com" || ch["name"] != "Fresh" {
		t.Errorf("imported channel %v", ch)
	}

	// Created and updated contacts joined the segment, each once.
	members := ctIDs(e, contacts+"?segment_id="+f.seg+"&take=100")
	if len(members) != len(want["created"])+4 {
		t.Errorf("segment has %d members, want %d created + 4 updated", len(members), len(want["created"]))
	}
	for _, id := range []string{f.known, f.crm, f.phone, f.byID} {
		if !ctContains(members, id) {
			t.Errorf("updated contact %s is not in the segment", id)
		}
	}

	// Matched channels got their empty fields filled, and nothing overwritten.
	channel := func(id string) map[string]any {
		chs := e.Do("GET", contacts+"/"+id, e.AdminKey, nil).Expect(200).Map()["channels"].([]any)
		return chs[0].(map[string]any)
	}
	if c := channel(f.known); c["email"] != "Known@Example.com" || c["name"] != "Known Person" || c["phone"] != "+49 30 1234567" ||
		c["user_id"] != "known-user" {
		t.Errorf("email-matched channel %v: want its email kept, name, phone and user_id filled", c)
	}
	if c := channel(f.crm); c["user_id"] != "crm-42" || c["email"] != "crm42@example.com" {
		t.Errorf("user_id-matched channel %v: want the email filled", c)
	}
	if c := channel(f.phone); c["name"] != "Zed phone" || c["phone"] != "+1 (555) 123-4567" || c["user_id"] != "zed-1" ||
		c["email"] != "zed@example.com" {
		t.Errorf("phone-matched channel %v: want every field kept", c)
	}
	byID := e.Do("GET", contacts+"/"+f.byID, e.AdminKey, nil).Expect(200).Map()["channels"].([]any)
	if len(byID) != 1 || byID[0].(map[string]any)["email"] != "byid@example.com" || byID[0].(map[string]any)["type"] != app.IntegrationCustom {
		t.Errorf("contact_id item: channels %v, want one custom channel with its email", byID)
	}
	// A filled email matches from now on.
	// Filled fields match from now on; the kept ones still do, the refused ones do not.
	again, _ := ctBulkCall(e, contacts+"/bulk/dry", []app.BulkChannel{{Email: "CRM42@example.com"}, {Email: "new@example.com"},
		{Phone: "+49301234567"}, {UserID: "known-user"}, {UserID: "zed-1"}, {Email: "other-zed@example.com"}, {UserID: "phone-user"}})
	if len(again.Updated) != 5 || len(again.Created) != 2 || again.Created[0].Email != "other-zed@example.com" {
		t.Errorf("after the import: %+v, want five updated and the two refused values created", again)
	}
}

func TestBulkNoInvalidOmitsErrorsAndContactIDWins(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	f := ctBulkSetup(e)
	// An item whose email matches one contact but whose contact_id names another updates the
	// contact it names.
	items := []app.BulkChannel{{ContactID: f.byID, Email: "known@example.com"}}
	res, raw := ctBulkCall(e, "/orgs/c/contacts/bulk/dry", items)
	if len(res.Updated) != 1 || len(res.Invalid) != 0 {
		t.Fatalf("result %+v", res)
	}
	if errs, ok := raw["errors"]; ok && len(errs.([]any)) != 0 {
		t.Errorf("errors %v without an invalid item", errs)
	}
	ctBulkCall(e, "/orgs/c/contacts/bulk", items)
	byID := e.Do("GET", "/orgs/c/contacts/"+f.byID, e.AdminKey, nil).Expect(200).Map()["channels"].([]any)
	known := e.Do("GET", "/orgs/c/contacts/"+f.known, e.AdminKey, nil).Expect(200).Map()["channels"].([]any)
	if len(byID) != 1 || len(known) != 1 || known[0].(map[string]any)["email"] != "Known@Example.com" {
		t.Errorf("contact_id item landed wrong: by-id channels %v, known channels %v", byID, known)
	}
	// Text travels through the store intact, whatever its characters.
	odd := `O'Brien "Bob" <b>&amp; \ 😀 ü`
	if r, _ := ctBulkCall(e, "/orgs/c/contacts/bulk", []app.BulkChannel{{Email: "odd@example.com", Name: odd, UserID: "odd\u0000x"}}); len(r.Created) != 1 {
		t.Fatalf("odd item %+v", r)
	}
	got := e.Do("GET", "/orgs/c/contacts?search=odd%40example.com", e.AdminKey, nil).Expect(200).List()
	if len(got) != 1 || got[0]["name"] != odd || got[0]["channels"].([]any)[0].(map[string]any)["name"] != odd ||
		got[0]["channels"].([]any)[0].(map[string]any)["user_id"] != "odd\u0000x" {
		t.Errorf("imported %v, want name %q", got, odd)
	}
	// An empty list is fine and does nothing.
	if r, _ := ctBulkCall(e, "/orgs/c/contacts/bulk", []app.BulkChannel{}); len(r.Created)+len(r.Updated)+len(r.Invalid) != 0 {
		t.Errorf("empty import %+v", r)
	}
}

func ctHolds(r app.BulkResult, c ctBulkCase) bool {
	list := map[string][]app.BulkChannel{"created": r.Created, "updated": r.Updated, "invalid": r.Invalid}[c.class]
	for _, it := range list {
		if it == c.item {
			return true
		}
	}
	return false
}

func ctJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func ctContains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
