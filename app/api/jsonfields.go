package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"

	"wsapi/app"
)

// everyBadField names every top-level member of body that cannot go into v: unknown names and
// wrong types alike. encoding/json stops reporting at the first, and a client fixing a request
// should not have to learn its mistakes one round trip at a time. nil when v is not a struct
// or no member is at fault (the caller then reports the decoder's own error).
func everyBadField(body []byte, v any) error {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return nil
	}
	fields := jsonFields(t.Elem(), map[string]reflect.Type{})
	p := app.Problems{}
	for name, raw := range members {
		ft, ok := lookupField(fields, name)
		if !ok {
			p.Add(name, "unknown field")
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(reflect.New(ft).Interface()); err != nil {
			addMemberProblem(p, name, err)
		}
	}
	if len(p) == 0 {
		return nil
	}
	return p.Err()
}

// addMemberProblem words err, from decoding member name on its own, as a field problem.
func addMemberProblem(p app.Problems, name string, err error) {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field == "" {
		p.Add(name, typeProblem(typ.Type))
		return
	}
	var ae *app.Error
	if errors.As(decodeError(err), &ae) && len(ae.Fields) > 0 {
		for k, why := range ae.Fields {
			p.Add(name+"."+k, why)
		}
		return
	}
	p.Add(name, "invalid value")
}

// jsonFields maps each JSON member name of struct type t to its Go type, embedded structs
// flattened as encoding/json does.
func jsonFields(t reflect.Type, into map[string]reflect.Type) map[string]reflect.Type {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			jsonFields(f.Type, into)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		into[name] = f.Type
	}
	return into
}

// lookupField matches as encoding/json does: exactly, else ignoring case.
func lookupField(fields map[string]reflect.Type, name string) (reflect.Type, bool) {
	if t, ok := fields[name]; ok {
		return t, true
	}
	for k, t := range fields {
		if strings.EqualFold(k, name) {
			return t, true
		}
	}
	return nil, false
}
