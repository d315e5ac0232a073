package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"wsapi/app"
	"wsapi/sqlite"
)

// TestMigrationRenamesTheOldDefaultOwnerEmail: the "owner@localhost" of installs made before
// the API's email rule becomes app.DefaultOwnerEmail (migration 00031), unless the
// organization already has a member at that address; other members keep theirs.
func TestMigrationRenamesTheOldDefaultOwnerEmail(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "owner.db")
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(bg, nil); err != nil {
		t.Fatal(err)
	}
	_, owner, _ := seedOrg(t, db, "someone@example.com")
	b, _, _ := seedOrg(t, db, "other@example.com")
	for { // down through 00031, whatever came after it
		r, err := db.MigrateDown(bg)
		if err != nil || r.Version < 31 {
			t.Fatalf("down: %+v %v", r, err)
		}
		if r.Version == 31 {
			break
		}
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	const now = "2026-01-02T03:04:05.000Z"
	for _, q := range []string{
		`UPDATE members SET email = 'owner@localhost' WHERE id = '` + owner.ID + `'`,
		`INSERT INTO members (id, org_id, name, email, role, created_at, updated_at) VALUES
			('mem_old', '` + b.ID + `', 'Owner', 'owner@localhost', 'ADMIN', '` + now + `', '` + now + `'),
			('mem_taken', '` + b.ID + `', 'Taken', '` + app.DefaultOwnerEmail + `', 'ADMIN', '` + now + `', '` + now + `')`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Migrate(bg, nil); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{owner.ID: app.DefaultOwnerEmail, "mem_old": "owner@localhost", "mem_taken": app.DefaultOwnerEmail}
	for id, w := range want {
		var got string
		if err := raw.QueryRow(`SELECT email FROM members WHERE id = ?`, id).Scan(&got); err != nil || got != w {
			t.Errorf("member %s: %q %v, want %q", id, got, err, w)
		}
	}
}
