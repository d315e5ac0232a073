package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// The database holds every tenant's data, so its files are the process user's alone. SQLite
// creates a new database file 0644 (less the umask) and gives the -wal and -shm files the
// mode of the database file (unixOpen's findCreateFileMode, which modernc.org/sqlite keeps),
// so creating the database file 0600 ourselves makes all three 0600.

// privateFile creates path 0600 when it does not exist yet, and takes the group and other
// permissions away from an existing database and its -wal and -shm (files made by an older
// version or copied in by a restore).
func privateFile(path string) error {
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("sqlite: create %s: %w", path, err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := restrict(p); err != nil {
			return err
		}
	}
	return nil
}

// restrict clears the group and other permission bits of an existing file.
func restrict(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	if err := os.Chmod(path, fi.Mode().Perm()&0o700); err != nil {
		return fmt.Errorf("sqlite: restrict %s to its owner: %w", path, err)
	}
	return nil
}

// createPrivate creates a new, empty file 0600 for SQLite to write into (a backup); it fails
// when the file exists, so a backup never overwrites one.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	return f.Close()
}
