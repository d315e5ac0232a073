package sqlite_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/sqlite"
)

// Migrating an empty file is most of a small store test's time (the migrations and their
// triggers), so, as app/apitest does, the migrations run once per test binary into a template
// kept in memory, and each test opens its own copy. Tests of the migrations themselves open
// empty files.
var template struct {
	once sync.Once
	data []byte
	err  error
}

func migratedTemplate(t testing.TB) []byte {
	t.Helper()
	template.once.Do(func() {
		dir, err := os.MkdirTemp("", "sqlite-template-")
		if err != nil {
			template.err = err
			return
		}
		defer os.RemoveAll(dir)
		db, err := sqlite.Open(filepath.Join(dir, "template.db"))
		if err != nil {
			template.err = err
			return
		}
		defer db.Close()
		if template.err = db.Migrate(bg, nil); template.err != nil {
			return
		}
		copyPath := filepath.Join(dir, "copy.db")
		if template.err = db.Backup(bg, copyPath); template.err != nil {
			return
		}
		template.data, template.err = os.ReadFile(copyPath)
	})
	if template.err != nil {
		t.Fatal(template.err)
	}
	return template.data
}

// openDB opens a copy of the migrated template in a temporary directory. Migrate still runs
// on it (and finds every migration applied), as it does when the server starts.
func openDB(t testing.TB) (*sqlite.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	if err := os.WriteFile(path, migratedTemplate(t), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(bg, nil); err != nil {
		t.Fatal(err)
	}
	return db, path
}

// write runs fn in a write transaction and fails the test on its error.
func write(t testing.TB, db *sqlite.DB, fn func(tx app.Tx) error) {
	t.Helper()
	if err := db.Write(bg, fn); err != nil {
		t.Fatal(err)
	}
}

// read runs fn in a read transaction and fails the test on its error.
func read(t testing.TB, db *sqlite.DB, fn func(tx app.Tx) error) {
	t.Helper()
	if err := db.Read(bg, fn); err != nil {
		t.Fatal(err)
	}
}

// at is a fixed instant plus sec seconds, so that tests order rows by time deterministically.
func at(sec int) app.Time {
	return app.At(time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC).Add(time.Duration(sec) * time.Second))
}

// code is the domain code of err, "" for nil, "?" for an error without one.
func code(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := app.AsError(err); ok {
		return string(e.Code)
	}
	return "?"
}

// idsOf lists the ids of items, in order.
func idsOf[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, x := range items {
		out[i] = id(x)
	}
	return out
}
