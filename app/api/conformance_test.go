package api_test

import (
	"encoding/json"
	neturl "net/url"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/api"
	"wsapi/app/apitest"
)

// The answers and rules the audits found at odds with the OpenAPI document (issue 25, items
// 8 to 13). Every exchange of these tests is validated by the harness too.

// TestReadyzAnswersItsSchema: {"status":"ready"} is what the document's Readiness allows
// (the Health schema it used to name allows only ok and unavailable).
func TestReadyzAnswersItsSchema(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	if m := e.Do("GET", "/readyz", "", nil).Expect(200).Map(); m["status"] != "ready" {
		t.Fatalf("readyz %v", m)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(api.OpenAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	apitest.SameSet(t, "Readiness.status", doc.Components.Schemas["Readiness"].Properties["status"].Enum,
		[]string{"ready", "not_ready", "unavailable"})
}

// TestEmailRuleIsTheDocumentsPattern: the owner a fresh install makes has an address the
// document's pattern accepts (the member list of a fresh install is validated here), the
// server refuses an address without a dotted domain as the document does, and the pattern
// beside every `format: email` is app.EmailPattern.
func TestEmailRuleIsTheDocumentsPattern(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	var members []app.Member
	e.Do("GET", "/orgs/c/members", e.AdminKey, nil).Expect(200).JSON(&members)
	if len(members) != 1 || members[0].Email != app.DefaultOwnerEmail {
		t.Fatalf("members %+v, want the owner at %s", members, app.DefaultOwnerEmail)
	}
	for _, bad := range []string{"x@localhost", `"a b"@example.com`, "a..b@example.com", "a@-x.example.com", "a@example.com."} {
		e.DoInvalid("POST", "/orgs/c/members", e.AdminKey, map[string]any{"name": "X", "email": bad}).
			ExpectError(400, "invalid_argument", "email")
		e.DoInvalid("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": "X",
			"channels": []map[string]any{{"type": "email", "email": bad}}}).ExpectError(400, "invalid_argument", "channels[0].email")
	}
	for _, good := range []string{"o'brien+tag@mail.example.co.uk", "x@localhost.localdomain", "A.B@EXAMPLE.COM"} {
		e.Do("POST", "/orgs/c/members", e.AdminKey, map[string]any{"name": good, "email": good}).Expect(201)
	}
	n := 0
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["format"] == "email" {
				n++
				if v["pattern"] != app.EmailPattern {
					t.Errorf("format: email with pattern %v, want app.EmailPattern", v["pattern"])
				}
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	var doc any
	if err := json.Unmarshal(api.OpenAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	if walk(doc); n < 5 {
		t.Errorf("%d email fields in the document", n)
	}
}

// TestFractionInWholeNumberField: 2.5 for csat_score or max_pages says what is wrong.
func TestFractionInWholeNumberField(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.NoRuns)
	chat := chConversation(e, e.AdminKey, "c", "Ann")
	res := e.DoInvalid("PATCH", "/orgs/c/chats/"+chat["id"].(string), e.AdminKey, map[string]any{"csat_score": 2.5}).
		ExpectError(400, "invalid_argument", "csat_score")
	if why := res.ErrorFields()["csat_score"]; why != "must be a whole number" {
		t.Errorf("csat_score: %q", why)
	}
	asst := chAssistant(e, e.AdminKey, "c", map[string]any{"name": "Aria"})
	res = e.DoInvalid("POST", "/orgs/c/assistants/"+asst["id"].(string)+"/knowledge/contents", e.AdminKey,
		map[string]any{"content": map[string]any{"type": "URL", "url": "https://example.com/", "max_pages": 2.5}}).
		ExpectError(400, "invalid_argument", "content.max_pages")
	if why := res.ErrorFields()["content.max_pages"]; why != "must be a whole number" {
		t.Errorf("content.max_pages: %q", why)
	}
	// A whole number written with a fraction of zero is a whole number.
	e.Do("PATCH", "/orgs/c/chats/"+chat["id"].(string), e.AdminKey, map[string]any{"csat_score": 4.0}).Expect(200)
}

// TestOAuthEmptySubdomainRefused: the spec's pattern ^[a-z0-9-]+$ needs one character; an
// absent subdomain is still fine.
func TestOAuthEmptySubdomainRefused(t *testing.T) {
	t.Parallel()
	e, _ := cnOAuthEnv(t)
	e.DoInvalid("POST", "/orgs/c/connections/oauth/validate", e.AdminKey, map[string]any{"type": "HUBSPOT",
		"validation_url": cnRedirect + "?code=x&state=y", "subdomain": ""}).ExpectError(400, "invalid_argument", "subdomain")
	e.DoInvalid("POST", "/orgs/c/connections/oauth/authorize", e.AdminKey, map[string]any{"type": "HUBSPOT",
		"redirect_url": cnRedirect, "subdomain": ""}).ExpectError(400, "invalid_argument", "subdomain")
	e.Do("POST", "/orgs/c/connections/oauth/authorize", e.AdminKey, map[string]any{"type": "HUBSPOT",
		"redirect_url": cnRedirect}).Expect(200)
}

// TestBlankText: text made only of characters that show nothing (spaces of any width,
// zero-width and other format characters) is "must not be blank" wherever the spec asks for
// 1 to N characters; one drawn character among them is text.
func TestBlankText(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	contact := ctNamed(e, "Ann")
	notes := "/orgs/c/contacts/" + contact + "/notes"
	for _, blank := range []string{" ", "   ", "\t\n", "\u00a0\u3000", "\u200b", "\u200b\u200d\ufeff", "\u2060 \u180e", "\u3164"} {
		text := blank
		res := e.Do("POST", notes, e.AdminKey, map[string]any{"content": text}).ExpectError(400, "invalid_argument", "content")
		if why := res.ErrorFields()["content"]; why != "must not be blank" {
			t.Errorf("note %q: %q", blank, why)
		}
		e.Do("POST", "/orgs/c/contacts/"+contact+"/memories", e.AdminKey, map[string]any{"type": "FACT", "importance": 0.5,
			"content": text}).ExpectError(400, "invalid_argument", "content")
		e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": text}).ExpectError(400, "invalid_argument", "name")
		e.Do("POST", "/orgs/c/segments", e.AdminKey, map[string]any{"name": text}).ExpectError(400, "invalid_argument", "name")
	}
	e.DoInvalid("POST", notes, e.AdminKey, map[string]any{"content": ""}).ExpectError(400, "invalid_argument", "content")
	e.Do("POST", notes, e.AdminKey, map[string]any{"content": "\u200bx"}).Expect(201)
	// The upper bound counts every character, blank ones included.
	e.Do("POST", notes, e.AdminKey, map[string]any{"content": "x" + strings.Repeat(" ", 999)}).Expect(201)
	e.DoInvalid("POST", notes, e.AdminKey, map[string]any{"content": "x" + strings.Repeat(" ", 1000)}).
		ExpectError(400, "invalid_argument", "content")
	if n := e.Count(e.AdminKey, notes); n != 2 {
		t.Errorf("%d notes, want the 2 that are text", n)
	}
}

// TestJSONBodyNeedsJSONMediaType: a JSON body sent as text/plain, form-encoded or with no
// Content-Type is 415 naming Content-Type, and creates nothing.
func TestJSONBodyNeedsJSONMediaType(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
		"multipart/form-data; boundary=x", "application/merge-patch+json", ""} {
		req := e.Request("POST", "/orgs/c/contacts", e.AdminKey, `{"name":"Ann"}`)
		req.Header.Del("Content-Type")
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		res := e.Send(apitest.Invalid(req)).ExpectError(415, "unsupported_media_type", "Content-Type")
		if res.Header.Get("X-Request-Id") == "" {
			t.Errorf("%q: 415 without X-Request-Id", ct)
		}
	}
	if n := e.Count(e.AdminKey, "/orgs/c/contacts"); n != 0 {
		t.Fatalf("%d contacts created by refused requests", n)
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8"} {
		req := e.Request("POST", "/orgs/c/segments", e.AdminKey, `{"name":"S `+ct+`"}`)
		req.Header.Set("Content-Type", ct)
		e.Send(req).Expect(201)
	}
	// A request without a body needs no type.
	e.Do("POST", "/orgs/c/keys/"+"key_unknown0000000000000"+"/rotate", e.AdminKey, nil).ExpectError(404, "not_found")
}

// TestResponseHeadersInTheDocument: every answer of every operation declares X-Request-Id,
// and every answer an idempotent replay can give declares Idempotent-Replayed.
func TestResponseHeadersInTheDocument(t *testing.T) {
	t.Parallel()
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Responses map[string]struct {
				Headers map[string]any `json:"headers"`
			} `json:"responses"`
		} `json:"components"`
	}
	type operation struct {
		Parameters []struct {
			Ref string `json:"$ref"`
		} `json:"parameters"`
		Responses map[string]struct {
			Ref     string         `json:"$ref"`
			Headers map[string]any `json:"headers"`
		} `json:"responses"`
	}
	if err := json.Unmarshal(api.OpenAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	for path, item := range doc.Paths {
		for method, raw := range item {
			var op operation
			if method == "parameters" || json.Unmarshal(raw, &op) != nil {
				continue
			}
			keyed := false
			for _, p := range op.Parameters {
				keyed = keyed || strings.HasSuffix(p.Ref, "/idempotencyKeyParam")
			}
			for status, r := range op.Responses {
				headers := r.Headers
				if r.Ref != "" {
					headers = doc.Components.Responses[r.Ref[strings.LastIndex(r.Ref, "/")+1:]].Headers
				}
				if headers["X-Request-Id"] == nil {
					t.Errorf("%s %s %s: no X-Request-Id", method, path, status)
				}
				if keyed && status[0] == '2' && headers["Idempotent-Replayed"] == nil {
					t.Errorf("%s %s %s: no Idempotent-Replayed", method, path, status)
				}
			}
		}
	}
	// And the answers carry them: a replay is checked against its declared header.
	e := apitest.New(t)
	req := e.Request("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": "Ann"})
	req.Header.Set("Idempotency-Key", "k-1")
	e.Send(req).Expect(201)
	req = e.Request("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": "Ann"})
	req.Header.Set("Idempotency-Key", "k-1")
	if r := e.Send(req).Expect(201); r.Header.Get("Idempotent-Replayed") != "true" || r.Header.Get("X-Request-Id") == "" {
		t.Errorf("replay headers %v", r.Header)
	}
}

// TestCursorsBelongToTheirList: a cursor reused with another filter, or on another contact's
// memories, is 400 naming next; with the same parameters (and another take) it walks on.
func TestCursorsBelongToTheirList(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	a, b := ctNamed(e, "A"), ctNamed(e, "B")
	ctMemories(e, a, 3)
	ctMemories(e, b, 3)
	_, next, _ := ctMemoryPage(e, "/orgs/c/contacts/"+a+"/memories?take=1")
	if next == "" {
		t.Fatal("no cursor")
	}
	q := "&next=" + neturl.QueryEscape(next)
	e.Do("GET", "/orgs/c/contacts/"+a+"/memories?take=2"+q, e.AdminKey, nil).Expect(200)
	res := e.Do("GET", "/orgs/c/contacts/"+b+"/memories?take=1"+q, e.AdminKey, nil).ExpectError(400, "invalid_argument", "next")
	if !strings.Contains(res.ErrorFields()["next"], "another") {
		t.Errorf("next: %q", res.ErrorFields()["next"])
	}

	for range 3 {
		chConversation(e, e.AdminKey, "c", "Chatty")
	}
	first := e.Do("GET", "/orgs/c/inbox?take=1&status=ALL", e.AdminKey, nil).Expect(200)
	cursor := neturl.QueryEscape(first.Header.Get("pagination-next"))
	if cursor == "" {
		t.Fatal("no inbox cursor")
	}
	e.Do("GET", "/orgs/c/inbox?take=1&status=ALL&next="+cursor, e.AdminKey, nil).Expect(200)
	e.Do("GET", "/orgs/c/inbox?take=1&status=ALL&filter=UNASSIGNED&next="+cursor, e.AdminKey, nil).
		ExpectError(400, "invalid_argument", "next")
	e.Do("GET", "/orgs/c/inbox?take=1&next="+cursor+"&search=chatty", e.AdminKey, nil).
		ExpectError(400, "invalid_argument", "next")

	// A message cursor of one chat is not a position in another.
	c1, c2 := chChat(e, e.AdminKey, "c", nil), chChat(e, e.AdminKey, "c", nil)
	for range 2 {
		chMsg(e, e.AdminKey, "c", c1["id"].(string), "user", "hi")
	}
	m := e.Do("GET", "/orgs/c/chats/"+c1["id"].(string)+"/messages?take=1", e.AdminKey, nil).Expect(200)
	mc := neturl.QueryEscape(m.Header.Get("pagination-next"))
	if mc == "" {
		t.Fatal("no message cursor")
	}
	e.Do("GET", "/orgs/c/chats/"+c2["id"].(string)+"/messages?take=1&next="+mc, e.AdminKey, nil).
		ExpectError(400, "invalid_argument", "next")
}
