package api_test

import (
	"net/url"
	"sort"
	"strings"
	"testing"

	"wsapi/app/apitest"
)

// fieldNames lists the fields an error body names, sorted.
func fieldNames(r *apitest.Response) []string {
	var out []string
	for f := range r.ErrorFields() {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// TestEveryBadFieldInOneAnswer: a request with several bad fields gets one 400 naming all
// of them, whichever check would have run first, and changes nothing.
func TestEveryBadFieldInOneAnswer(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	asst := chAssistant(e, e.AdminKey, "c", map[string]any{"name": "Helper"})["id"].(string)
	long := url.QueryEscape(strings.Repeat("s", 257))
	cases := []struct {
		method, path string
		body         any
		want         []string
	}{
		{"POST", "/orgs/c/connections/oauth/validate", map[string]any{"type": "slack", "subdomain": "Bad_Sub", "validation_url": ""},
			[]string{"subdomain", "type", "validation_url"}},
		{"POST", "/orgs/c/connections/oauth/authorize", map[string]any{"type": "slack", "subdomain": "Bad_Sub", "redirect_url": "relative"},
			[]string{"redirect_url", "subdomain", "type"}},
		{"GET", "/orgs/c/inbox?take=0&status=NOPE", nil, []string{"status", "take"}},
		{"GET", "/orgs/c/inbox?page=0&take=101&search=%20", nil, []string{"page", "search", "take"}},
		{"GET", "/orgs/c/contacts?page=x&blocked=maybe&unsubscribed=perhaps&search=" + long, nil,
			[]string{"blocked", "page", "search", "unsubscribed"}},
		{"GET", "/orgs/c/broadcasts/recipients?take=101&status=NOPE&is_sent=yes", nil, []string{"is_sent", "status", "take"}},
		{"GET", "/orgs/c/assistants?take=0&search=%09", nil, []string{"search", "take"}},
		{"GET", "/orgs/c/suppressions?page=-1&search=" + long, nil, []string{"page", "search"}},
		{"GET", "/orgs/c/assistants/" + asst + "/knowledge/contents?take=0&type=NOPE&status=NOPE", nil, []string{"status", "take", "type"}},
		{"GET", "/orgs/c/assistants/" + asst + "/knowledge/search?take=0&search=%20", nil, []string{"search", "take"}},
		// Page problems alone still stop the request before it reads anything.
		{"GET", "/orgs/c/assistants/asst_nope/knowledge/contents?take=0", nil, []string{"take"}},
	}
	for _, c := range cases {
		res := e.DoInvalid(c.method, c.path, e.AdminKey, c.body).ExpectError(400, "invalid_argument")
		if got := fieldNames(res); strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s %s: fields %v, want %v (%s)", c.method, c.path, got, c.want, res.Body)
		}
	}
}
