package api_test

import (
	"strings"
	"testing"

	"wsapi/app/apitest"
)

// Through the real routes, bulk bodies that are wrong part-way still get the 400s the plain
// decoder gave: malformed JSON after the first items names the byte, wrong types and unknown
// fields in items and members are each named, one item over the limit names channels; and
// none of them changes anything.
func TestBulkBodyErrorsThroughTheRoutes(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	const contacts = "/orgs/c/contacts"
	before := e.Count(e.AdminKey, contacts)
	good := strings.Repeat(`{"email":"a@example.com"},`, 3)
	for _, path := range []string{contacts + "/bulk/dry", contacts + "/bulk"} {
		res := e.DoInvalid("POST", path, e.AdminKey, `{"channels":[`+good+`{"email":"b@example.com"} {"email":"c@example.com"}]}`)
		res.ExpectError(400, "invalid_json")
		if msg := res.Map()["error"].(map[string]any)["message"]; msg != "malformed JSON at byte 118: invalid character '{' after array element" {
			t.Errorf("%s, malformed part-way: %q", path, msg)
		}
		e.DoInvalid("POST", path, e.AdminKey, `{"channels":[`+good).ExpectError(400, "invalid_json")
		fields := e.DoInvalid("POST", path, e.AdminKey, `{"channels":[`+good+`{"email":5}],"segment_ids":"s","extra":1}`).
			ExpectError(400, "invalid_argument", "channels.email", "segment_ids", "extra").ErrorFields()
		if len(fields) != 3 || fields["channels.email"] != "must be of type string" || fields["extra"] != "unknown field" {
			t.Errorf("%s, wrong types: %v", path, fields)
		}
		e.DoInvalid("POST", path, e.AdminKey, `{"channels":[`+good+`{"mail":"x@example.com"}]}`).ExpectError(400, "invalid_argument", "channels.mail")
		e.DoInvalid("POST", path, e.AdminKey, `{"channels":[`+good+`7]}`).ExpectError(400, "invalid_argument", "channels")
		over := `{"channels":[` + strings.Repeat(`{"user_id":"u"},`, 50000) + `{"user_id":"v"}]}`
		e.DoInvalid("POST", path, e.AdminKey, over).ExpectError(400, "invalid_argument", "channels")
	}
	if after := e.Count(e.AdminKey, contacts); after != before {
		t.Errorf("contacts %d before the rejected requests, %d after", before, after)
	}
}
