package app

import (
	"reflect"
	"testing"
)

// TestCacheKeysNameEveryField: the keys of kept answers are written field by field, so a
// field added to a filter and not to its key would make two questions share one answer.
// Each field of each filter, set on its own (a *bool to true and to false), must give a key
// of its own.
func TestCacheKeysNameEveryField(t *testing.T) {
	t.Parallel()
	// The member is part of an inbox question only for ASSIGNED_TO_ME (the others are
	// shared by every member), so the inbox's base asks that.
	inbox := InboxFilter{Filter: "ASSIGNED_TO_ME"}
	distinctKeys(t, "InboxFilter", inbox, func(f InboxFilter) string { return inboxKey("org_1", f, "|0|20") })
	distinctKeys(t, "ContactFilter", ContactFilter{}, func(f ContactFilter) string { return contactsKey("org_1", f, Page{Page: 1, Take: 20}) })
}

// distinctKeys sets each field of base in turn to values unlike its own and checks that key
// answers a different key for each.
func distinctKeys[F any](t *testing.T, what string, base F, key func(F) string) {
	t.Helper()
	seen := map[string]string{key(base): "the base filter"}
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		field := typ.Field(i)
		values := otherValues(field.Type, reflect.ValueOf(base).Field(i))
		if len(values) == 0 {
			t.Errorf("%s.%s: the test does not know how to vary a %s: teach otherValues", what, field.Name, field.Type)
		}
		for j, v := range values {
			f := base
			reflect.ValueOf(&f).Elem().Field(i).Set(v)
			name := field.Name + "#" + string(rune('0'+j))
			k := key(f)
			if other, dup := seen[k]; dup {
				t.Errorf("%s.%s: %s and %s share a cache key: add the field to the key", what, field.Name, name, other)
			}
			seen[k] = name
		}
	}
}

// otherValues are values of type typ unlike was (none for a type it does not know).
func otherValues(typ reflect.Type, was reflect.Value) []reflect.Value {
	switch typ.Kind() {
	case reflect.String:
		s := "other"
		if was.String() == s {
			s = "another"
		}
		return []reflect.Value{reflect.ValueOf(s).Convert(typ)}
	case reflect.Int, reflect.Int64, reflect.Int32:
		return []reflect.Value{reflect.ValueOf(was.Int() + 7).Convert(typ)}
	case reflect.Bool:
		return []reflect.Value{reflect.ValueOf(!was.Bool())}
	case reflect.Pointer:
		if typ.Elem().Kind() != reflect.Bool {
			return nil
		}
		yes, no := true, false
		return []reflect.Value{reflect.ValueOf(&yes), reflect.ValueOf(&no)}
	}
	return nil
}
