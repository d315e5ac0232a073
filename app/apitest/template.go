package apitest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"wsapi/sqlite"
)

// Every test used to migrate an empty file: 12 migrations and their 50-odd triggers, about a
// third of a small test's time (more under -race). As PocketBase's tests.TempDirClone does,
// the migrations run once per test binary into a template, and each test gets a copy of it;
// Build still runs the migrations on the copy, which finds them all applied. The template is
// kept in memory, so no file outlives the test binary. Tests that test migrations open their
// own empty files and are unaffected.
var template struct {
	once sync.Once
	data []byte
	err  error
}

// migrated answers the bytes of a freshly migrated database, made on first use.
func migrated() ([]byte, error) {
	template.once.Do(func() {
		template.data, template.err = makeTemplate()
	})
	return template.data, template.err
}

// makeTemplate migrates an empty database in a temporary directory and answers a compact,
// self-contained copy of it (VACUUM INTO: one file, no -wal to carry along).
func makeTemplate() ([]byte, error) {
	dir, err := os.MkdirTemp("", "apitest-template-")
	if err != nil {
		return nil, fmt.Errorf("apitest: template: %w", err)
	}
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(filepath.Join(dir, "template.db"))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := db.Migrate(context.Background(), nil); err != nil {
		return nil, err
	}
	copyPath := filepath.Join(dir, "copy.db")
	if err := db.Backup(context.Background(), copyPath); err != nil {
		return nil, err
	}
	return os.ReadFile(copyPath)
}

// placeTemplate puts a copy of the migrated template at path, 0600 as sqlite.Open would make
// it. An existing file is left alone: restart tests reopen their database.
func placeTemplate(path string) error {
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil
	}
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	data, err := migrated()
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("apitest: template copy: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("apitest: template copy: %w", err)
	}
	return f.Close()
}
