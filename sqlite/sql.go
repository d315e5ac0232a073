package sqlite

import (
	"database/sql"
	"strings"

	"wsapi/app"
)

// prefixed qualifies a column list with a table alias: "a, b" -> "m.a, m.b".
func prefixed(alias, columns string) string {
	parts := strings.Split(columns, ",")
	for i, p := range parts {
		parts[i] = alias + "." + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

// collect scans every row with scan and closes the rows. An error that ends the iteration
// early (rows.Err) is an error, never a silently short list (Miniflux's bug).
func collect[T any](rows *sql.Rows, scan func(rowScanner) (T, error)) ([]T, error) {
	defer rows.Close()
	out := []T{} // a list answers [] in JSON, never null
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, mapErr(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	return out, nil
}

// keyed is a row of a batch load: a child and the key of the parent it belongs to.
type keyed[T any] struct {
	key string
	v   T
}

// scanDue reads the (id, org, queue) rows of a claim's candidates, in the query's order, and
// closes them.
func scanDue(rows *sql.Rows) ([]app.Due, error) {
	return collect(rows, func(r rowScanner) (d app.Due, err error) {
		return d, r.Scan(&d.ID, &d.Org, &d.Queue)
	})
}

// scanString reads a one-column row of text.
func scanString(r rowScanner) (s string, err error) { return s, r.Scan(&s) }
