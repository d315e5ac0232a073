package api_test

import (
	"database/sql"
	"strconv"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"

	_ "modernc.org/sqlite" // read-only look into the test database
)

// Helpers of the contacts tests; every name starts with ct so that it cannot clash with the
// helpers of the other test files of the package.

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

// ctIDs answers the ids of a contacts list, in order.
func ctIDs(e *apitest.Env, path string) []string {
	e.T.Helper()
	var ids []string
	for _, c := range e.Do("GET", path, e.AdminKey, nil).Expect(200).List() {
		ids = append(ids, c["id"].(string))
	}
	return ids
}

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
