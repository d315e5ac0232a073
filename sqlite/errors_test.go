package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"wsapi/app"
)

// uniqueConstraints lists every UNIQUE constraint and primary key of the schema as SQLite names
// them in a violation ("table.a, table.b"), except keys on a lone random id and the full-text
// indexes' own tables.
func uniqueConstraints(t *testing.T, db *DB) map[string]bool {
	t.Helper()
	ctx := context.Background()
	rows, err := db.reader.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%\_fts\_%' ESCAPE '\'`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := collect(rows, scanString)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, table := range tables {
		rows, err := db.reader.QueryContext(ctx, `SELECT name FROM pragma_index_list(?) WHERE "unique" = 1`, table)
		if err != nil {
			t.Fatal(err)
		}
		indexes, err := collect(rows, scanString)
		if err != nil {
			t.Fatal(err)
		}
		for _, index := range indexes {
			rows, err := db.reader.QueryContext(ctx, `SELECT name FROM pragma_index_info(?) ORDER BY seqno`, index)
			if err != nil {
				t.Fatal(err)
			}
			cols, err := collect(rows, scanString)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range cols {
				cols[i] = table + "." + c
			}
			if key := strings.Join(cols, ", "); key != table+".id" {
				out[key] = true
			}
		}
	}
	return out
}

// TestEveryUniqueConstraintIsMapped: a new UNIQUE constraint must say which field it guards
// (or that no client input reaches it), and the table names no constraint that is gone.
func TestEveryUniqueConstraintIsMapped(t *testing.T) {
	t.Parallel()
	db, _ := migratedDB(t, time.Second)
	schema := uniqueConstraints(t, db)
	for key := range schema {
		if _, ok := uniqueFields[key]; !ok && !internalUnique[key] {
			t.Errorf("UNIQUE constraint %q is in neither uniqueFields nor internalUnique", key)
		}
	}
	for key := range uniqueFields {
		if !schema[key] {
			t.Errorf("uniqueFields names %q, which the schema does not have", key)
		}
	}
	for key := range internalUnique {
		if !schema[key] {
			t.Errorf("internalUnique names %q, which the schema does not have", key)
		}
	}
}

// TestConstraintErrors: the store's constraint failures become the domain's errors: a taken
// value is a 409 naming its field, a broken reference a 409, a random id's clash a 409 naming
// nothing.
func TestConstraintErrors(t *testing.T) {
	t.Parallel()
	db, _ := migratedDB(t, time.Second)
	now := app.At(time.Now())
	org := app.Org{ID: app.NewID("org"), Name: "O", Plan: app.PlanFree, CreatedAt: now, UpdatedAt: now}
	member := func(email string) app.Member {
		return app.Member{ID: app.NewID("mem"), OrgID: org.ID, Name: "M", Email: email, Role: app.RoleAdmin, CreatedAt: now, UpdatedAt: now}
	}
	role := func(name string) app.Role {
		return app.Role{ID: app.NewID("role"), OrgID: org.ID, Name: name, Permissions: []app.Permission{}, CreatedAt: now, UpdatedAt: now}
	}
	first, firstRole := member("a@example.com"), role("Support")
	write := func(fn func(tx app.Tx) error) error { return db.Write(context.Background(), fn) }
	if err := write(func(tx app.Tx) error {
		return errors.Join(tx.CreateOrg(org), tx.CreateMember(first), tx.CreateRole(firstRole))
	}); err != nil {
		t.Fatal(err)
	}
	orphan := member("b@example.com")
	orphan.OrgID = "org_gone"
	sameID := member("c@example.com")
	sameID.ID = first.ID
	cases := []struct {
		name  string
		write func(tx app.Tx) error
		field string
	}{
		{"member email taken", func(tx app.Tx) error { return tx.CreateMember(member("a@example.com")) }, "email"},
		{"role name taken", func(tx app.Tx) error { return tx.CreateRole(role("Support")) }, "name"},
		{"member of an organization that is gone", func(tx app.Tx) error { return tx.CreateMember(orphan) }, ""},
		{"random id clash", func(tx app.Tx) error { return tx.CreateMember(sameID) }, ""},
	}
	for _, c := range cases {
		err := write(c.write)
		e, ok := app.AsError(err)
		if !ok || e.Code != app.CodeConflict {
			t.Errorf("%s: %v, want a conflict", c.name, err)
			continue
		}
		if _, named := e.Fields[c.field]; named != (c.field != "") || len(e.Fields) > 1 {
			t.Errorf("%s: fields %v, want %q", c.name, e.Fields, c.field)
		}
	}
}

// TestUniqueMessagesNameTheirField: every mapped constraint, as SQLite words its violation,
// names the field the table gives.
func TestUniqueMessagesNameTheirField(t *testing.T) {
	t.Parallel()
	for key, want := range uniqueFields {
		msg := "constraint failed: UNIQUE constraint failed: " + key + " (2067)"
		e, ok := app.AsError(uniqueConflict(msg))
		if !ok || e.Code != app.CodeConflict || e.Fields[want.field] != want.why || !strings.HasPrefix(e.Message, want.field+" ") {
			t.Errorf("%s: %+v", key, e)
		}
	}
	if e, _ := app.AsError(uniqueConflict("UNIQUE constraint failed: api_keys.token_hash")); len(e.Fields) != 0 {
		t.Errorf("an internal constraint names %v", e.Fields)
	}
}

// TestBusyDatabaseIsUnavailable: when another process holds the write lock past the busy
// timeout, a write fails as unavailable (a 503 to retry), not as an internal error; reads
// go on.
func TestBusyDatabaseIsUnavailable(t *testing.T) {
	t.Parallel()
	db, path := migratedDB(t, 50*time.Millisecond)
	other, err := sql.Open("sqlite", dsn(path, true, time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	err = db.Write(ctx, func(tx app.Tx) error { return nil })
	if e, ok := app.AsError(err); !ok || e.Code != app.CodeUnavailable {
		t.Fatalf("write under another's lock: %v, want unavailable", err)
	}
	if err := db.Read(ctx, func(tx app.Tx) error { _, err := tx.GetOrg("org_none"); return err }); !errors.Is(err, app.ErrNotFound) {
		t.Fatalf("read under another's lock: %v", err)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := db.Write(ctx, func(tx app.Tx) error { return nil }); err != nil {
		t.Fatalf("write after the lock is gone: %v", err)
	}
}
