package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"wsapi/sqlite"
)

// TestMigrationRepairsRecipientsOfGoneContacts: recipients left pointing at a contact that a
// merge or a deletion removed, before recipients followed their contact, are given the
// contact that holds their channel now, or none (migration 00015).
func TestMigrationRepairsRecipientsOfGoneContacts(t *testing.T) {
	t.Parallel()
	repairFrom(t, 15)
}

// TestMigration24RepairsWhatTheFirst00015Missed: a database that ran 00015 as first shipped
// (00015_oauth_states_used.sql, without the repair) still holds recipients of gone contacts;
// 00024 repairs them, and run again on a repaired database it changes nothing.
func TestMigration24RepairsWhatTheFirst00015Missed(t *testing.T) {
	t.Parallel()
	path := repairFrom(t, 24)
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for { // down through 00024, past the migrations that came after it
		r, err := db.MigrateDown(bg)
		if err != nil || r.Version < 24 {
			t.Fatalf("down: %+v %v", r, err)
		}
		if r.Version == 24 {
			break
		}
	}
	if err := db.Migrate(bg, nil); err != nil {
		t.Fatal(err)
	}
	checkRepaired(t, path)
}

// repairFrom migrates a database, goes down to (and below) version, stores recipients of a
// merged contact, of a deleted one and of one still there, migrates up again and checks the
// repair. It answers the database's path.
func repairFrom(t *testing.T, version int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "repair.db")
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(bg, nil); err != nil {
		t.Fatal(err)
	}
	org, _, _ := seedOrg(t, db, "a@example.com")
	for { // down through version, whatever came after it
		r, err := db.MigrateDown(bg)
		if err != nil || r.Version < version {
			t.Fatalf("down: %+v %v", r, err)
		}
		if r.Version == version {
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
		`INSERT INTO broadcasts (id, org_id, name, integration_id, status, created_at, updated_at) VALUES ('bc_1', ?1, 'B', 'custom', 'SENDING', ?2, ?2)`,
		`INSERT INTO contacts (id, org_id, name, created_at, updated_at) VALUES ('ct_target', ?1, 'T', ?2, ?2), ('ct_kept', ?1, 'K', ?2, ?2)`,
		// ch_moved belonged to a merged contact and now belongs to ct_target.
		`INSERT INTO contact_channels (id, org_id, contact_id, type, created_at, updated_at) VALUES ('ch_moved', ?1, 'ct_target', 'custom', ?2, ?2),
			('ch_kept', ?1, 'ct_kept', 'custom', ?2, ?2)`,
		`INSERT INTO broadcast_recipients (id, org_id, broadcast_id, contact_id, channel_id, integration_id, status, created_at, updated_at)
			VALUES ('r_merged', ?1, 'bc_1', 'ct_merged_away', 'ch_moved', 'custom', 'SENDING', ?2, ?2),
			('r_deleted', ?1, 'bc_1', 'ct_deleted', 'ch_deleted', 'custom', 'SENDING', ?2, ?2),
			('r_kept', ?1, 'bc_1', 'ct_kept', 'ch_kept', 'custom', 'SENDING', ?2, ?2)`,
	} {
		if _, err := raw.Exec(q, org.ID, now); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Migrate(bg, nil); err != nil {
		t.Fatal(err)
	}
	checkRepaired(t, path)
	return path
}

// checkRepaired checks the recipients repairFrom stored.
func checkRepaired(t *testing.T, path string) {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	want := map[string]sql.NullString{"r_merged": {String: "ct_target", Valid: true}, "r_deleted": {}, "r_kept": {String: "ct_kept", Valid: true}}
	for id, w := range want {
		var got sql.NullString
		if err := raw.QueryRow(`SELECT contact_id FROM broadcast_recipients WHERE id = ?`, id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != w {
			t.Errorf("%s: contact %v, want %v", id, got, w)
		}
	}
}
