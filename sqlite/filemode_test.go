package sqlite_test

import (
	"os"
	"path/filepath"
	"testing"

	"wsapi/sqlite"
)

func wantMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s is %04o, want %04o", filepath.Base(path), got, want)
	}
}

// TestFilesArePrivate: a new database, its -wal and -shm and a backup are 0600, whatever
// the umask lets through; an existing database (and -wal, -shm) readable by others is
// restricted to its owner when opened.
func TestFilesArePrivate(t *testing.T) {
	t.Parallel()
	db, path := openDB(t)
	seedOrg(t, db, "modes@example.com") // a write, so the -wal holds something
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		wantMode(t, p, 0o600)
	}
	backup := filepath.Join(filepath.Dir(path), "backup.db")
	if err := db.Backup(bg, backup); err != nil {
		t.Fatal(err)
	}
	wantMode(t, backup, 0o600)
	db.Close()

	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o644); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	again, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if err := again.Ping(bg); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if _, err := os.Stat(p); err == nil {
			wantMode(t, p, 0o600)
		}
	}
}
