package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// The package's internal tests, like its external ones (template_test.go), open copies of
// one database migrated once per test binary instead of migrating a file each.
var migratedOnce struct {
	once sync.Once
	data []byte
	err  error
}

func migratedBytes(t testing.TB) []byte {
	t.Helper()
	migratedOnce.once.Do(func() {
		dir, err := os.MkdirTemp("", "sqlite-internal-template-")
		if err != nil {
			migratedOnce.err = err
			return
		}
		defer os.RemoveAll(dir)
		db, err := Open(filepath.Join(dir, "template.db"))
		if err != nil {
			migratedOnce.err = err
			return
		}
		defer db.Close()
		ctx := context.Background()
		if migratedOnce.err = db.Migrate(ctx, nil); migratedOnce.err != nil {
			return
		}
		copyPath := filepath.Join(dir, "copy.db")
		if migratedOnce.err = db.Backup(ctx, copyPath); migratedOnce.err != nil {
			return
		}
		migratedOnce.data, migratedOnce.err = os.ReadFile(copyPath)
	})
	if migratedOnce.err != nil {
		t.Fatal(migratedOnce.err)
	}
	return migratedOnce.data
}

// migratedDB opens a copy of the migrated template whose connections wait at most busy for
// a lock.
func migratedDB(t testing.TB, busy time.Duration) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	if err := os.WriteFile(path, migratedBytes(t), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := open(path, busy)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return db, path
}

// openInternal opens a copy of the migrated template with the default busy timeout.
func openInternal(t testing.TB) *DB {
	t.Helper()
	db, _ := migratedDB(t, busyTimeout)
	return db
}
