package apitest

import (
	"regexp"
	"strings"
	"testing"
)

// TimestampRE is the API's timestamp form: RFC 3339 in UTC with milliseconds.
var TimestampRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// JSONKind is the JSON type of a decoded value: string, number, boolean, null, object, array.
func JSONKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "?"
}

// ExpectShape checks that obj has exactly the fields of want, each of its type: a JSON type,
// "time" (RFC 3339 UTC with milliseconds), a trailing "?" for "or null", "null", or
// "absent" for a key that must be missing.
func ExpectShape(t testing.TB, what string, obj map[string]any, want map[string]string) {
	t.Helper()
	if obj == nil {
		t.Errorf("%s: not an object", what)
		return
	}
	for f, typ := range want {
		v, ok := obj[f]
		if typ == "absent" {
			if ok {
				t.Errorf("%s.%s = %#v: want the key absent", what, f, v)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: field %q missing in %v", what, f, obj)
			continue
		}
		base, nullable := strings.TrimSuffix(typ, "?"), strings.HasSuffix(typ, "?")
		if v == nil && (nullable || base == "null") {
			continue
		}
		if base == "time" {
			if s, isStr := v.(string); !isStr || !TimestampRE.MatchString(s) {
				t.Errorf("%s.%s = %#v: want an RFC 3339 UTC timestamp with milliseconds", what, f, v)
			}
			continue
		}
		if k := JSONKind(v); k != base {
			t.Errorf("%s.%s = %#v: JSON %s, want %s", what, f, v, k, typ)
		}
	}
	for f := range obj {
		if _, ok := want[f]; !ok {
			t.Errorf("%s: unexpected field %q", what, f)
		}
	}
}
