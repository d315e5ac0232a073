package secret_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"wsapi/app/secret"
)

func perm(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestKeyFiles: a new key file is 0600; one made readable by others is restricted on load;
// WriteKey writes the same key 0600, never over an existing file, and it opens what the
// original sealed.
func TestKeyFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "app.key")
	box, err := secret.LoadOrCreate(path)
	if err != nil {
		t.Fatal(err)
	}
	if p := perm(t, path); p != 0o600 {
		t.Fatalf("new key %04o", p)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := secret.LoadOrCreate(path); err != nil {
		t.Fatal(err)
	}
	if p := perm(t, path); p != 0o600 {
		t.Fatalf("loaded key left %04o", p)
	}

	copyPath := filepath.Join(dir, "backup.db.key")
	if err := box.WriteKey(copyPath); err != nil {
		t.Fatal(err)
	}
	if p := perm(t, copyPath); p != 0o600 {
		t.Fatalf("written key %04o", p)
	}
	orig, _ := os.ReadFile(path)
	copied, _ := os.ReadFile(copyPath)
	if !bytes.Equal(orig, copied) {
		t.Fatal("the written key differs from the key file")
	}
	sealed, err := box.Seal("whsec_abc")
	if err != nil {
		t.Fatal(err)
	}
	restored, err := secret.LoadOrCreate(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := restored.Open(sealed); err != nil || plain != "whsec_abc" {
		t.Fatalf("the copy opens %q, %v", plain, err)
	}
	if err := box.WriteKey(copyPath); err == nil {
		t.Fatal("WriteKey overwrote an existing file")
	}
}
