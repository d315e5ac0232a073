package api_test

import (
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// A bulk item's fields are bounded like POST /contacts (255 characters), and contacts a
// bulk import updates get a new updated_at.
func TestBulkFieldLengthsAndTouchedContacts(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	var res app.BulkResult
	e.Do("POST", "/orgs/c/contacts/bulk", e.AdminKey, map[string]any{"channels": []map[string]string{
		{"email": "ok@example.com", "name": strings.Repeat("n", 255)},
		{"email": "long@example.com", "name": strings.Repeat("n", 256)},
	}}).Expect(200).JSON(&res)
	if len(res.Created) != 1 || len(res.Invalid) != 1 || !strings.Contains(res.Errors[0], "name") {
		t.Fatalf("result %+v", res)
	}
	var list []app.Contact
	e.Do("GET", "/orgs/c/contacts?search=ok@example.com", e.AdminKey, nil).Expect(200).JSON(&list)
	before := list[0].UpdatedAt
	e.Clock.Advance(time.Minute)
	e.Do("POST", "/orgs/c/contacts/bulk", e.AdminKey, map[string]any{"channels": []map[string]string{
		{"email": "OK@example.com", "phone": "+1 555 0100"}}}).Expect(200).JSON(&res)
	var got app.Contact
	e.Do("GET", "/orgs/c/contacts/"+list[0].ID, e.AdminKey, nil).Expect(200).JSON(&got)
	if len(res.Updated) != 1 || !got.UpdatedAt.After(before.Time) {
		t.Fatalf("updated %+v, updated_at %s -> %s", res, before, got.UpdatedAt)
	}
}
