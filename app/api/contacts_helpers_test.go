package api_test

import (
	"database/sql"
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"

	_ "modernc.org/sqlite" // read-only look into the test database
)

// Helpers of the contacts tests; every name starts with ct so that it cannot clash with the
// helpers of the other test files of the package.

// ctEnv starts a server whose rate limit does not get in the way of tests that make
// hundreds of requests (the limiter runs on the manual clock, so it never refills).
func ctEnv(t *testing.T) *apitest.Env {
	t.Helper()
	return apitest.New(t, func(c *cli.Config) { c.HTTP.RateLimitPerMinute = 1 << 20 })
}

// ctContact creates a contact in org through the API and answers it as a JSON object.
func ctContact(e *apitest.Env, key, org string, body map[string]any) map[string]any {
	e.T.Helper()
	return e.Do("POST", "/orgs/"+org+"/contacts", key, body).Expect(201).Map()
}

// ctNamed creates a contact with a name and optional channels.
func ctNamed(e *apitest.Env, name string, channels ...map[string]any) string {
	e.T.Helper()
	if channels == nil {
		channels = []map[string]any{}
	}
	return ctContact(e, e.AdminKey, "c", map[string]any{"name": name, "channels": channels})["id"].(string)
}

// ctSegment creates a segment and answers its id.
func ctSegment(e *apitest.Env, key, org, name string) string {
	e.T.Helper()
	return e.Do("POST", "/orgs/"+org+"/segments", key, map[string]any{"name": name}).Expect(201).Map()["id"].(string)
}

// ctCount answers the pagination-count header of a list.
func ctCount(e *apitest.Env, key, path string) int {
	e.T.Helper()
	res := e.Do("GET", path, key, nil).Expect(200)
	n, err := strconv.Atoi(res.Header.Get("pagination-count"))
	if err != nil {
		e.T.Fatalf("GET %s: pagination-count %q", path, res.Header.Get("pagination-count"))
	}
	return n
}

// ctIDs answers the ids of a contacts list, in order.
func ctIDs(e *apitest.Env, path string) []string {
	e.T.Helper()
	var ids []string
	for _, c := range e.Do("GET", path, e.AdminKey, nil).Expect(200).List() {
		ids = append(ids, c["id"].(string))
	}
	return ids
}

// ctSameSet fails unless got and want hold the same strings.
func ctSameSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	g, w := append([]string(nil), got...), append([]string(nil), want...)
	sort.Strings(g)
	sort.Strings(w)
	if len(g) != len(w) {
		t.Errorf("%s: got %v, want %v", what, got, want)
		return
	}
	for i := range g {
		if g[i] != w[i] {
			t.Errorf("%s: got %v, want %v", what, got, want)
			return
		}
	}
}

var ctIDRE = regexp.MustCompile(`^([a-z]+)_([0-9A-Za-z]{20,})$`)

// ctID fails unless id is a string with the prefix and at least 20 base62 characters.
func ctID(t *testing.T, id any, prefix string) {
	t.Helper()
	s, _ := id.(string)
	if m := ctIDRE.FindStringSubmatch(s); m == nil || m[1] != prefix {
		t.Errorf("id %q: want %s_ and at least 20 base62 characters", s, prefix)
	}
}

// The shape checker is shared with every package's tests.
var (
	ctShape = apitest.ExpectShape
	ctKind  = apitest.JSONKind
)

var (
	ctContactShape = map[string]string{
		"id": "string", "name": "string", "blocked": "boolean", "unsubscribed": "boolean", "is_admin": "boolean",
		"channels": "array", "segments": "array", "created_at": "time", "updated_at": "time",
		"blocked_at": "time?", "unsubscribed_at": "time?", "unsubscribe_reason": "string?", "unsubscribe_feedback": "string?",
	}
	ctChannelShape = map[string]string{
		"id": "string", "type": "string", "user_id": "string", "avatar": "string", "name": "string", "username": "string",
		"email": "string", "phone": "string", "country": "string", "agent": "string", "ip": "string", "language": "string",
		"platform_data": "object", "created_at": "time", "updated_at": "time", "link": "string",
	}
	ctSegmentShape = map[string]string{
		"id": "string", "name": "string", "color": "string", "contacts_count": "number", "created_at": "time", "updated_at": "time",
	}
	ctNoteShape = map[string]string{
		"id": "string", "contact_id": "string", "content": "string", "created_at": "time", "updated_at": "time", "user": "object",
	}
	ctMemoryShape = map[string]string{
		"id": "string", "content": "string", "user_id": "string", "contact_id": "string", "type": "string",
		"importance": "number", "created_at": "time", "updated_at": "time",
	}
)

// ctEvents answers the envelopes a receiver got so far, decoded.
func ctEvents(t *testing.T, rcv *apitest.Receiver) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, r := range rcv.Requests() {
		var env map[string]any
		if err := json.Unmarshal(r.Body, &env); err != nil {
			t.Fatalf("envelope is not JSON: %s", r.Body)
		}
		if env["type"] != r.Header.Get("x-webhook-event") {
			t.Errorf("envelope type %v, header %q", env["type"], r.Header.Get("x-webhook-event"))
		}
		out = append(out, env)
	}
	return out
}

// ctWaitEvent waits for the n-th request (1-based) and answers its envelope.
func ctWaitEvent(t *testing.T, rcv *apitest.Receiver, n int) map[string]any {
	t.Helper()
	rcv.Wait(t, n, 5*time.Second)
	return ctEvents(t, rcv)[n-1]
}

// ctSettled waits until the endpoint's n deliveries have all SUCCEEDED. A test must not move
// the manual clock while a delivery is in flight: past its lease, the dispatcher claims it
// again and the receiver gets the event twice.
func ctSettled(e *apitest.Env, webhookID string, n int) {
	e.T.Helper()
	e.Eventually(5*time.Second, strconv.Itoa(n)+" deliveries SUCCEEDED", func() bool {
		ds := e.Deliveries(e.AdminKey, "c", webhookID, "")
		for _, d := range ds {
			if d.Status != app.DeliverySucceeded {
				return false
			}
		}
		return len(ds) == n
	})
}

// ctDB opens the test database read-only, for checks the API cannot make (rows that belong
// to a deleted contact).
func ctDB(t *testing.T, e *apitest.Env) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+e.Runtime.Config.DB.Path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// ctRows counts the rows of table whose contact_id is id.
func ctRows(t *testing.T, db *sql.DB, table, id string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM `+table+` WHERE contact_id = ?`, id).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}
