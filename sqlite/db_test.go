package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/sqlite"
)

var bg = context.Background()

// seed writes an organization, a member and a key of that member in one transaction.
func seedOrg(t testing.TB, db *sqlite.DB, email string) (app.Org, app.Member, app.APIKey) {
	t.Helper()
	now := app.At(time.Now())
	org := app.Org{ID: app.NewID("org"), Name: "O", Plan: app.PlanFree, CreatedAt: now, UpdatedAt: now}
	m := app.Member{ID: app.NewID("mem"), OrgID: org.ID, Name: "M", Email: email, Role: app.RoleAdmin, CreatedAt: now, UpdatedAt: now}
	k := app.APIKey{ID: app.NewID("key"), OrgID: org.ID, MemberID: m.ID, Name: "k", Preview: "sk_…", CreatedAt: now}
	err := db.Write(bg, func(tx app.Tx) error {
		if err := tx.CreateOrg(org); err != nil {
			return err
		}
		if err := tx.CreateMember(m); err != nil {
			return err
		}
		return tx.CreateKey(k, app.HashToken(app.RandomBase62(20)))
	})
	if err != nil {
		t.Fatal(err)
	}
	return org, m, k
}

func migrationCounts(t *testing.T, db *sqlite.DB) (applied, pending int) {
	t.Helper()
	st, err := db.MigrationsStatus(bg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if s.Applied {
			applied++
			if s.AppliedAt == "" {
				t.Errorf("migration %s applied without a time", s.Name)
			}
		} else {
			pending++
		}
	}
	return applied, pending
}

// TestMigrateRoundTrip: every migration goes up, down and up again on a real file.
func TestMigrateRoundTrip(t *testing.T) {
	t.Parallel()
	db, err := sqlite.Open(filepath.Join(t.TempDir(), "round.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var applied []sqlite.MigrationResult
	if err := db.Migrate(bg, func(r sqlite.MigrationResult) { applied = append(applied, r) }); err != nil {
		t.Fatal(err)
	}
	n := len(applied)
	if n == 0 || applied[0].Version != 1 {
		t.Fatalf("applied %+v", applied)
	}
	if a, p := migrationCounts(t, db); a != n || p != 0 {
		t.Fatalf("after up: %d applied, %d pending", a, p)
	}
	// With the newest one rolled back, up applies it alone.
	if _, err := db.MigrateDown(bg); err != nil {
		t.Fatal(err)
	}
	var one []sqlite.MigrationResult
	if err := db.Migrate(bg, func(r sqlite.MigrationResult) { one = append(one, r) }); err != nil ||
		len(one) != 1 || one[0].Version != applied[n-1].Version {
		t.Fatalf("up after one down: %+v, %v", one, err)
	}
	seedOrg(t, db, "a@example.com")
	for i := n; i > 0; i-- {
		r, err := db.MigrateDown(bg)
		if err != nil {
			t.Fatalf("down %d: %v", i, err)
		}
		if r.Version != applied[i-1].Version {
			t.Errorf("down rolled back %d, want %d", r.Version, applied[i-1].Version)
		}
	}
	if a, p := migrationCounts(t, db); a != 0 || p != n {
		t.Fatalf("after down: %d applied, %d pending", a, p)
	}
	if _, err := db.MigrateDown(bg); err == nil {
		t.Error("down with nothing applied must fail")
	}
	var again int
	if err := db.Migrate(bg, func(sqlite.MigrationResult) { again++ }); err != nil || again != n {
		t.Fatalf("up again: %d applied, %v", again, err)
	}
	// The schema works after the round trip, and the old data went with the tables.
	err = db.Read(bg, func(tx app.Tx) error {
		n, err := tx.CountOrgs()
		if err == nil && n != 0 {
			err = fmt.Errorf("%d orgs after down and up", n)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	seedOrg(t, db, "a@example.com")
	var noop int
	if err := db.Migrate(bg, func(sqlite.MigrationResult) { noop++ }); err != nil || noop != 0 {
		t.Errorf("a second up applied %d (%v)", noop, err)
	}
}

// TestWAL: the file is in WAL mode (persistent in the file, so visible from any connection).
func TestWAL(t *testing.T) {
	t.Parallel()
	db, path := openDB(t)
	seedOrg(t, db, "w@example.com")
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Errorf("no write-ahead log beside the database after a write: %v", err)
	}
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var mode string
	if err := raw.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode %q (%v), want wal", mode, err)
	}
}

// TestForeignKeys: the store's connections enforce foreign keys, so a member's keys go with
// it, and the schema cascades an organization's deletion to what it owns.
func TestForeignKeys(t *testing.T) {
	t.Parallel()
	db, path := openDB(t)
	org, m, k := seedOrg(t, db, "f@example.com")
	if err := db.Write(bg, func(tx app.Tx) error { return tx.DeleteMember(org.ID, m.ID) }); err != nil {
		t.Fatal(err)
	}
	err := db.Read(bg, func(tx app.Tx) error { _, err := tx.GetKey("", k.ID); return err })
	if !errors.Is(err, app.ErrNotFound) {
		t.Errorf("the key of a deleted member: %v, want not found (foreign_keys off?)", err)
	}
	// A key for a member that does not exist is refused.
	err = db.Write(bg, func(tx app.Tx) error {
		return tx.CreateKey(app.APIKey{ID: app.NewID("key"), OrgID: org.ID, MemberID: "mem_missing", Name: "x", Preview: "p",
			CreatedAt: app.At(time.Now())}, []byte("h"))
	})
	if err == nil {
		t.Error("a key of an unknown member was stored")
	}

	org2, _, k2 := seedOrg(t, db, "g@example.com")
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec("DELETE FROM orgs WHERE id = ?", org2.ID); err != nil {
		t.Fatal(err)
	}
	err = db.Read(bg, func(tx app.Tx) error {
		if _, err := tx.GetKey("", k2.ID); !errors.Is(err, app.ErrNotFound) {
			return fmt.Errorf("key after its org was deleted: %v", err)
		}
		n, err := tx.CountMembersWithRole(org2.ID, app.RoleAdmin)
		if err == nil && n != 0 {
			err = fmt.Errorf("%d members left", n)
		}
		return err
	})
	if err != nil {
		t.Error(err)
	}
}

// TestErrorMapping: UNIQUE decides conflicts; a missing row is not_found.
func TestErrorMapping(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org, m, _ := seedOrg(t, db, "dup@example.com")
	err := db.Write(bg, func(tx app.Tx) error {
		m2 := m
		m2.ID = app.NewID("mem")
		return tx.CreateMember(m2)
	})
	if !errors.Is(err, app.ErrConflict) {
		t.Errorf("duplicate email: %v, want conflict", err)
	}
	err = db.Read(bg, func(tx app.Tx) error { _, err := tx.GetOrg("org_missing"); return err })
	if !errors.Is(err, app.ErrNotFound) {
		t.Errorf("missing org: %v, want not found", err)
	}
	err = db.Write(bg, func(tx app.Tx) error { return tx.DeleteMember(org.ID, "mem_missing") })
	if !errors.Is(err, app.ErrNotFound) {
		t.Errorf("delete of a missing member: %v, want not found", err)
	}
}

// TestTransactions: a failed write leaves nothing behind; reads cannot write.
func TestTransactions(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	boom := errors.New("boom")
	now := app.At(time.Now())
	err := db.Write(bg, func(tx app.Tx) error {
		if err := tx.CreateOrg(app.Org{ID: app.NewID("org"), Name: "gone", Plan: app.PlanFree, CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("write answered %v", err)
	}
	err = db.Read(bg, func(tx app.Tx) error {
		if n, err := tx.CountOrgs(); err != nil || n != 0 {
			return fmt.Errorf("%d orgs after a rolled back write (%v)", n, err)
		}
		return tx.CreateOrg(app.Org{ID: app.NewID("org"), Name: "sneaky", Plan: app.PlanFree, CreatedAt: now, UpdatedAt: now})
	})
	if err == nil {
		t.Error("a read transaction wrote")
	}
}

// TestWritePanicRollsBack: a panic inside a write transaction rolls it back and frees the one
// writer connection, so the next write goes through instead of waiting forever.
func TestWritePanicRollsBack(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	now := app.At(time.Now())
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic did not reach the caller")
			}
		}()
		_ = db.Write(bg, func(tx app.Tx) error {
			if err := tx.CreateOrg(app.Org{ID: app.NewID("org"), Name: "gone", Plan: app.PlanFree, CreatedAt: now, UpdatedAt: now}); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	ctx, cancel := context.WithTimeout(bg, 5*time.Second)
	defer cancel()
	err := db.Write(ctx, func(tx app.Tx) error {
		if n, err := tx.CountOrgs(); err != nil || n != 0 {
			return fmt.Errorf("%d orgs after a panicked write (%v)", n, err)
		}
		return tx.CreateOrg(app.Org{ID: app.NewID("org"), Name: "next", Plan: app.PlanFree, CreatedAt: now, UpdatedAt: now})
	})
	if err != nil {
		t.Fatalf("the write after a panic: %v", err)
	}
}

// TestConcurrentWritesAndReads: the single writer serializes writers; readers run beside it.
func TestConcurrentWritesAndReads(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Go(func() {
			now := app.At(time.Now())
			errs <- db.Write(bg, func(tx app.Tx) error {
				return tx.CreateOrg(app.Org{ID: app.NewID("org"), Name: fmt.Sprint("o", i), Plan: app.PlanFree, CreatedAt: now, UpdatedAt: now})
			})
		})
		wg.Go(func() {
			errs <- db.Read(bg, func(tx app.Tx) error { _, err := tx.ListOrgs(); return err })
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	err := db.Read(bg, func(tx app.Tx) error {
		if c, err := tx.CountOrgs(); err != nil || c != n {
			return fmt.Errorf("%d orgs (%v), want %d", c, err, n)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// TestBackup: VACUUM INTO writes a database that opens on its own.
func TestBackup(t *testing.T) {
	t.Parallel()
	db, path := openDB(t)
	org, _, _ := seedOrg(t, db, "b@example.com")
	copyPath := filepath.Join(filepath.Dir(path), "copy.db")
	if err := db.Backup(bg, copyPath); err != nil {
		t.Fatal(err)
	}
	cp, err := sqlite.Open(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	if err := cp.Read(bg, func(tx app.Tx) error { _, err := tx.GetOrg(org.ID); return err }); err != nil {
		t.Errorf("backup lacks the org: %v", err)
	}
	if a, p := migrationCounts(t, cp); a == 0 || p != 0 {
		t.Errorf("backup migrations: %d applied, %d pending", a, p)
	}
	if err := db.Backup(bg, copyPath); err == nil {
		t.Error("backup over an existing file must fail")
	}
}
