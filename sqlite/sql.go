package sqlite

import (
	"database/sql"
	"maps"
	"slices"
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

// queryAll runs query and collects its rows with scan.
func queryAll[T any](t *Tx, scan func(rowScanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, scan)
}

// listPage reads one page of a list and how many rows match in all: count is the list's
// COUNT(*) query and list its page's query, which takes the same args and then the page's
// LIMIT and OFFSET.
func listPage[T any](t *Tx, scan func(rowScanner) (T, error), p app.Page, count, list string, args ...any) ([]T, int, error) {
	total, err := t.count(count, args...)
	if err != nil {
		return nil, 0, err
	}
	out, err := queryAll(t, scan, list, append(args[:len(args):len(args)], p.Take, p.Offset())...)
	return out, total, err
}

// keyed is a row of a batch load: a child and the key of the parent it belongs to.
type keyed[T any] struct {
	key string
	v   T
}

// pickDue runs a claim's candidate query, whose rows are (id, org, queue) in the order to
// serve them, and answers the ids the room picks among them (none: nil). The room counts
// by tenant (app.ClaimRoom.ByTenant): the candidates' and the in-flight pieces'
// organizations are mapped to their top-level organization first.
func (t *Tx) pickDue(room app.ClaimRoom, query string, args ...any) ([]string, error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, err
	}
	due, err := collect(rows, func(r rowScanner) (d app.Due, err error) {
		return d, r.Scan(&d.ID, &d.Org, &d.Queue)
	})
	if err != nil || len(due) == 0 {
		return nil, err
	}
	orgs := slices.Collect(maps.Keys(room.Org))
	for _, d := range due {
		orgs = append(orgs, d.Org)
	}
	slices.Sort(orgs)
	tenant, err := t.tenants(slices.Compact(orgs))
	if err != nil {
		return nil, err
	}
	room, due = room.ByTenant(due, tenant)
	return room.Pick(due), nil
}

// leasePicked leases the rows a claim picked (pickDue) until leaseUntil, by the table's key
// column, and answers their ids as the JSON list the claim reads them back by.
func (t *Tx) leasePicked(table, key string, ids []string, leaseUntil app.Time) (string, error) {
	list := jsonText(ids)
	_, err := t.exec(`UPDATE `+table+` SET lease_until = ? WHERE `+key+` IN (SELECT value FROM json_each(?))`,
		leaseUntil, list)
	return list, err
}

// scanString reads a one-column row of text.
func scanString(r rowScanner) (s string, err error) { return s, r.Scan(&s) }
