package api

import (
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"wsapi/app"
)

// bulkBodies are bodies of every shape the quick bulk decoder reads itself or leaves to
// encoding/json: plain, odd but valid, wrong, malformed part-way, cut short.
var bulkBodies = map[string]string{
	"plain": `{"channels":[{"user_id":"u1","name":"Ann","email":"a@example.com","phone":"+1 555 0100","contact_id":"ct_x"},` +
		`{"email":"b@example.com"}],"segment_ids":["seg_1","seg_2"]}`,
	"white space":            " {\n\t\"segment_ids\" : [ ] ,\r\n \"channels\" : [ { \"name\" : \"Zoë 🚀\" } , { } ]\n} ",
	"empty object":           `{}`,
	"no items":               `{"channels":[]}`,
	"null channels":          `{"channels":null}`,
	"null item":              `{"channels":[null,{"email":"a@example.com"}]}`,
	"null field":             `{"channels":[{"email":null,"name":"N"}]}`,
	"null segment ids":       `{"channels":[{}],"segment_ids":null}`,
	"escapes":                `{"channels":[{"name":"a\"b\\c\u00e9\n\/"}],"segment_ids":["s\u0031"]}`,
	"escaped key":            `{"ch\u0061nnels":[{"em\u0061il":"a@example.com"}]}`,
	"other case":             `{"Channels":[{"EMAIL":"a@example.com","User_ID":"u"}]}`,
	"channels twice":         `{"channels":[{"email":"a@example.com","name":"first"}],"channels":[{"phone":"12345"}]}`,
	"field twice":            `{"channels":[{"email":"a@example.com","email":"b@example.com"}]}`,
	"invalid UTF-8":          "{\"channels\":[{\"name\":\"bad \xff byte\"}]}",
	"unknown member":         `{"channels":[],"bogus":1}`,
	"unknown item field":     `{"channels":[{"email":"a@example.com"},{"mail":"x"}]}`,
	"number for a string":    `{"channels":[{"email":"a@example.com"},{"email":5}]}`,
	"object for a string":    `{"channels":[{"name":{"first":"A"}}]}`,
	"string for channels":    `{"channels":"x"}`,
	"number as an item":      `{"channels":[{"email":"a@example.com"},5]}`,
	"wrong segment ids":      `{"channels":[],"segment_ids":"seg_1"}`,
	"number as a segment id": `{"channels":[],"segment_ids":[1]}`,
	"every bad member":       `{"channels":[{"email":5}],"segment_ids":"s","extra":true}`,
	"missing comma":          `{"channels":[{"email":"a@example.com"} {"email":"b@example.com"}]}`,
	"trailing comma":         `{"channels":[{"email":"a@example.com",}]}`,
	"control character":      "{\"channels\":[{\"email\":\"a\x01b\"}]}",
	"bad after a bad field":  `{"channels":[{"email":5},}`,
	"cut short":              `{"channels":[{"email":"a@example.com"},`,
	"cut in a string":        `{"channels":[{"email":"a@exa`,
	"second value":           `{"channels":[]} {"channels":[]}`,
	"trailing garbage":       `{"channels":[]} x`,
	"array":                  `[]`,
	"null":                   `null`,
	"string":                 `"channels"`,
	"empty":                  ``,
}

// The bulk routes decode exactly as the plain decoder did: the same input, or the same error
// (code, message, every field named), for every body above and for one over the item limit.
func TestBulkBodyDecodesAsBefore(t *testing.T) {
	t.Parallel()
	bodies := map[string]string{"over the limit": `{"channels":[` + strings.Repeat(`{"user_id":"u"},`, app.MaxBulkChannels) + `{}]}`}
	for name, body := range bulkBodies {
		bodies[name] = body
	}
	for name, body := range bodies {
		var before app.BulkInput
		errBefore := decodeJSON(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(body)), 1<<30, &before)
		now, errNow := decodeBulk(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(body)), 1<<30)
		if describe(errNow) != describe(errBefore) {
			t.Errorf("%s: error\n now    %s\n before %s", name, describe(errNow), describe(errBefore))
		}
		if !reflect.DeepEqual(now, before) {
			t.Errorf("%s: decoded\n now    %#v\n before %#v", name, now, before)
		}
	}
}

// describe is everything an error's answer shows.
func describe(err error) string {
	if err == nil {
		return "<nil>"
	}
	e, ok := app.AsError(err)
	if !ok {
		return "not an app error: " + err.Error()
	}
	return fmt.Sprintf("%s %q %v", e.Code, e.Message, e.Fields)
}

// The plain form is read by the quick decoder itself (the test above would pass as well if
// every body went to encoding/json); the rest, malformed bodies included, is left to
// encoding/json.
func TestBulkBodyPlainFormIsReadDirectly(t *testing.T) {
	t.Parallel()
	plain := map[string]bool{"plain": true, "white space": true, "empty object": true, "no items": true, "field twice": true}
	for name, body := range bulkBodies {
		if _, ok := (&bulkParser{data: []byte(body)}).input(); ok != plain[name] {
			t.Errorf("%s: read directly %v, want %v", name, ok, plain[name])
		}
	}
}
