package api_test

import (
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode"

	"wsapi/app/apitest"
)

// searchRoutes are the routes whose search parameter runs a full-text query (inbox, knowledge
// search) or a text match (knowledge contents, contacts, assistants, suppressions).
func searchRoutes(asst string) []string {
	return []string{"/orgs/c/assistants/" + asst + "/knowledge/search?search=", "/orgs/c/inbox?search=",
		"/orgs/c/assistants/" + asst + "/knowledge/contents?search=", "/orgs/c/contacts?search=",
		"/orgs/c/assistants?search=", "/orgs/c/suppressions?search="}
}

// searchEnv is a server with something to find on every search route: a chat with a
// message, a contact with a phone, and processed knowledge.
func searchEnv(t testing.TB) (*apitest.Env, string) {
	e := apitest.New(t, apitest.Unlimited)
	ct := e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": "Ada Lovelace",
		"channels": []map[string]any{{"type": "whatsapp", "phone": "+1 555 123 4567"}}}).Expect(201).Map()
	chat := e.Do("POST", "/orgs/c/chats", e.AdminKey, map[string]any{"contact_id": ct["id"]}).Expect(201).Map()
	e.Do("POST", "/orgs/c/chats/"+chat["id"].(string)+"/messages", e.AdminKey, map[string]any{"role": "user",
		"messages": chText("user", "the analytical engine AND its gears")}).Expect(201)
	asst := e.Do("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": "Helper"}).Expect(201).Map()["id"].(string)
	k := e.Do("POST", "/orgs/c/assistants/"+asst+"/knowledge/contents", e.AdminKey, map[string]any{"title": "Engine",
		"content": map[string]any{"type": "TEXT", "text": "The analytical engine weaves algebraic patterns."}}).Expect(201).Map()
	e.Eventually(10*time.Second, "knowledge processed", func() bool {
		got := e.Do("GET", "/orgs/c/assistants/"+asst+"/knowledge/contents/"+k["id"].(string), e.AdminKey, nil).Expect(200).Map()
		return got["status"] == "PROCESSED"
	})
	return e, asst
}

// blank tells whether a search holds no term at all (only spaces and control characters).
func blank(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) && !unicode.IsControl(r) }) < 0
}

// FuzzSearchRoutes sends any text as the search of every search route: none answers 5xx, a
// search of only whitespace is 400 naming search, and FTS5 syntax is taken as plain words.
// The seed corpus runs as part of `go test`.
func FuzzSearchRoutes(f *testing.F) {
	for _, s := range []string{" ", "\t", "\x00", "\x00abc", "a\x00b", "\"", "\"\"", "AND", "OR", "NOT", "*", "NEAR(",
		"NEAR(a b", "a AND", "(a", ")", "^a", "a:b", "col:", "-", "+", "a OR b NOT c", "\\", "'", "%", "_", "\xff\xfe",
		"\u00a0", "\u3000", "engine", "ENGINE*", "\"analytical engine\"", "5551234567", "+1 555", "{a b}", "a NEAR/2 b"} {
		f.Add(s)
	}
	e, asst := searchEnv(f)
	f.Fuzz(func(t *testing.T, s string) {
		e := e.For(t)
		for _, route := range searchRoutes(asst) {
			res := e.Do("GET", route+url.QueryEscape(s), e.AdminKey, nil)
			if res.Status >= 500 {
				t.Fatalf("GET %s%q: %d %s", route, s, res.Status, res.Body)
			}
			if blank(s) && s != "" && res.Status != 400 {
				t.Fatalf("GET %s%q (only whitespace): %d, want 400", route, s, res.Status)
			}
		}
	})
}

// TestSearchTakesOperatorsAsWords: FTS5 operator text is searched as words, not parsed.
func TestSearchTakesOperatorsAsWords(t *testing.T) {
	e, asst := searchEnv(t)
	if l := e.Do("GET", "/orgs/c/inbox?search="+url.QueryEscape("engine AND"), e.AdminKey, nil).Expect(200).List(); len(l) != 1 {
		t.Fatalf("inbox search for the words engine and AND: %d chats, want 1", len(l))
	}
	if l := e.Do("GET", "/orgs/c/inbox?search="+url.QueryEscape("engine NOT"), e.AdminKey, nil).Expect(200).List(); len(l) != 0 {
		t.Fatalf("inbox search for engine and NOT: %d chats, want 0 (NOT is a word here)", len(l))
	}
	l := e.Do("GET", "/orgs/c/assistants/"+asst+"/knowledge/search?search="+url.QueryEscape(`"analytical`), e.AdminKey, nil).Expect(200).List()
	if len(l) != 1 {
		t.Fatalf("knowledge search with a stray quote: %v", l)
	}
}
