package sqlite

import (
	"strconv"
	"strings"

	"wsapi/app"
)

// jsonChunk is one INSERT ... SELECT FROM jsonb_each statement of insertJSON: the query and
// its arguments, the JSON rows first.
//
// A column whose value is the same in every row of the chunk (the organization, the
// timestamps of one import, the many empty fields of a bulk channel) is bound once as a
// parameter instead of travelling in every row: SQLite finds the n-th element of a JSONB
// array by stepping over the ones before it, and those extractions were a third of the
// inserts' time.
func jsonChunk(head string, columns int, rows [][]any) (query string, args []any) {
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
	values := make([]any, 0, len(rows)*k)
	sent := make([][]any, len(rows))
	for i, r := range rows {
		start := len(values)
		for j, v := range r {
			if varying[j] {
				values = append(values, v)
			}
		}
		sent[i] = values[start:len(values):len(values)]
	}
	args[0] = jsonText(sent)
	return head + " SELECT " + strings.Join(cols, ", ") + " FROM jsonb_each(?1) ORDER BY key", args
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
