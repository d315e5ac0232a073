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

// scanDue reads the (id, org, queue) rows of a claim's candidates, in the query's order, and
// closes them.
func scanDue(rows *sql.Rows) ([]app.Due, error) {
	defer rows.Close()
	var due []app.Due
	for rows.Next() {
		var d app.Due
		if err := rows.Scan(&d.ID, &d.Org, &d.Queue); err != nil {
			return nil, mapErr(err)
		}
		due = append(due, d)
	}
	return due, mapErr(rows.Err())
}
