package sqlite

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"wsapi/app"
)

// jsonChunk is one INSERT ... SELECT FROM jsonb_each statement of insertJSON: the query and
// its arguments, the JSON rows first.
//
// A column whose value is the same in every row of the chunk (the organization, the
// timestamps of one import, the many empty fields of a bulk channel) is bound once as a
// parameter instead of travelling in every row: SQLite finds the n-th element of a JSONB
// array by stepping over the ones before it, and those extractions were a third of the
// inserts' time. The rows are written straight into a reused buffer, without boxing every
// value for encoding/json.
func jsonChunk(head string, columns int, rows [][]any, buf []byte) (query string, args []any, out []byte) {
	varying := make([]bool, columns)
	for j := range varying {
		for _, r := range rows[1:] {
			if !sameValue(r[j], rows[0][j]) {
				varying[j] = true
				break
			}
		}
	}
	cols := make([]string, columns)
	args = []any{nil}
	k := 0
	for j, v := range varying {
		if v {
			cols[j] = "value ->> " + strconv.Itoa(k)
			k++
			continue
		}
		args = append(args, rows[0][j])
		cols[j] = "?" + strconv.Itoa(len(args))
	}
	buf = append(buf[:0], '[')
	for i, r := range rows {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '[')
		first := true
		for j, v := range r {
			if !varying[j] {
				continue
			}
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = appendJSONValue(buf, v)
		}
		buf = append(buf, ']')
	}
	buf = append(buf, ']')
	args[0] = string(buf)
	return head + " SELECT " + strings.Join(cols, ", ") + " FROM jsonb_each(?1) ORDER BY key", args, buf
}

// sameValue tells two values that SQLite would store alike, for the kinds a bound
// parameter and ->> turn into the same SQL value; any other kind is never the same, so it
// always travels in the JSON.
func sameValue(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case string:
		b, ok := b.(string)
		return ok && a == b
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case int:
		b, ok := b.(int)
		return ok && a == b
	case int64:
		b, ok := b.(int64)
		return ok && a == b
	case app.Time:
		b, ok := b.(app.Time)
		return ok && a.IsZero() == b.IsZero() && a.Equal(b.Time)
	case *string:
		b, ok := b.(*string)
		return ok && (a == nil) == (b == nil) && (a == nil || *a == *b)
	}
	return false
}

// appendJSONValue appends v as JSON, as json.Marshal would read back through ->>.
func appendJSONValue(buf []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(buf, "null"...)
	case string:
		if utf8.ValidString(v) { // else json.Marshal's replacement characters, as before
			return appendJSONString(buf, v)
		}
	case bool:
		return strconv.AppendBool(buf, v)
	case int:
		return strconv.AppendInt(buf, int64(v), 10)
	case int64:
		return strconv.AppendInt(buf, v, 10)
	case app.Time:
		if v.IsZero() {
			return append(buf, "null"...)
		}
		buf = append(buf, '"')
		return append(v.UTC().AppendFormat(buf, app.TimeFormat), '"')
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic("sqlite: marshal: " + err.Error()) // only our own plain values are stored
	}
	return append(buf, b...)
}

// appendJSONString appends s (valid UTF-8) as a JSON string.
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"', '\\':
			buf = append(buf, '\\', c)
		default:
			buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
