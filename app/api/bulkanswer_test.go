package api

import (
	"bytes"
	"testing"

	"wsapi/app"
)

// The hand-written bulk answer is byte for byte what app.EncodeJSON writes, for plain
// strings and for every kind of string encoding/json escapes or replaces.
func TestBulkAnswerEncodesAsEncodeJSON(t *testing.T) {
	t.Parallel()
	odd := []string{"", "plain", `quote " and \ backslash`, "\b\f\n\r\t\x01\x1f", "<b>&amp;</b>", "Zoë 🚀",
		"line\u2028separator\u2029", "bad \xff utf-8", "\x7f delete"}
	var items []app.BulkChannel
	for i, s := range odd {
		items = append(items, app.BulkChannel{UserID: s, Name: odd[(i+1)%len(odd)], Email: s + "@example.com", Phone: s, ContactID: s})
	}
	results := map[string]app.BulkResult{
		"empty lists, no errors":  {Created: []app.BulkChannel{}, Updated: []app.BulkChannel{}, Invalid: []app.BulkChannel{}},
		"nil lists, empty errors": {Errors: []string{}},
		"every list and errors": {Created: items, Updated: items[2:], Invalid: items[:3],
			Errors: []string{"needs one of user_id, email, phone", `repeats the "email"`, odd[3]}},
	}
	for name, res := range results {
		want, err := app.EncodeJSON(res)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendBulkResult(nil, res); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got  %s\n want %s", name, got, want)
		}
	}
}
