package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"wsapi/app"
)

// TestAdminCommandsRefuseAMissingDatabase: every command that works on a database refuses
// where none exists, naming the path, where db.path came from and how to point at the right
// one, and creates nothing; `migrate up` creates it, after which the same command works.
func TestAdminCommandsRefuseAMissingDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "nowhere.db")
	csv := filepath.Join(dir, "c.csv")
	if err := os.WriteFile(csv, []byte("email\na@example.com\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"keys", "create", "--name", "x"}, {"keys", "list"}, {"keys", "delete", "key_x"},
		{"orgs", "create", "--name", "A"}, {"orgs", "list"}, {"orgs", "balance", "org_x", "--set", "5"},
		{"deliveries", "list"}, {"contacts", "import", csv, "--org", "c"},
		{"migrate", "status"}, {"migrate", "down"}, {"backup", filepath.Join(dir, "copy.db")},
	} {
		_, stderr, err := runCLI(t, db, args...)
		if err == nil || !strings.Contains(stderr, "no database at "+db+" (db.path from --db)") ||
			!strings.Contains(stderr, "--config FILE") || !strings.Contains(stderr, "APP_DB_PATH") {
			t.Errorf("app %s on a missing database: %v\n%s", strings.Join(args, " "), err, stderr)
		}
		if _, err := os.Stat(db); err == nil {
			t.Fatalf("app %s created %s", strings.Join(args, " "), db)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "copy.db")); err == nil {
		t.Error("backup wrote a copy of a database that does not exist")
	}
	// The binary exits 1, and names a path from the environment as such.
	cmd := exec.Command(appBinary(t), "keys", "create", "--name", "x")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "APP_DB_PATH="+db)
	out, err := cmd.CombinedOutput()
	if code := exitCode(err); code != 1 || !strings.Contains(string(out), "(db.path from APP_DB_PATH)") || strings.Contains(string(out), "sk_") {
		t.Fatalf("binary: exit %d\n%s", code, out)
	}
	mustCLI(t, db, "migrate", "up")
	if token := strings.TrimSpace(mustCLI(t, db, "keys", "create", "--name", "x")); !cliTokenRE.MatchString(token) {
		t.Fatalf("keys create after migrate up printed %q", token)
	}
}

// TestContactsImportOrgsAndRows: --org c is the default organization, as `c` is in the
// API's paths; an unknown organization is named as such; each invalid row is named by its
// line in the file (a quoted field over two lines counts both).
func TestContactsImportOrgsAndRows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := newDatabase(t, dir)
	mustCLI(t, db, "keys", "create", "--name", "k")
	csv := filepath.Join(dir, "c.csv")
	data := "name,email\nAnn,ann@example.com\n\"Two\nlines\",bad-address\nBob,bob@example.com\nNone,\n"
	if err := os.WriteFile(csv, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	var res app.BulkResult
	out := mustCLI(t, db, "contacts", "import", csv, "--org", "c", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Created) != 2 || len(res.Invalid) != 2 {
		t.Fatalf("import --org c: %s (%v)", out, err)
	}
	if want := []string{"line 3: email is not an address", "line 6: needs one of user_id, email, phone"}; strings.Join(res.Errors, "|") != strings.Join(want, "|") {
		t.Errorf("errors %q, want %q", res.Errors, want)
	}
	var orgs []app.Org
	mustCLIJSON(t, db, &orgs, "orgs", "list")
	withService(t, db, func(s *app.Service) {
		l, err := s.ListContacts(t.Context(), orgs[0].ID, app.ContactFilter{}, app.Page{Page: 1, Take: 10})
		if err != nil || l.Total != 2 {
			t.Errorf("default organization's contacts after import --org c: %d (%v)", l.Total, err)
		}
	})
	text := mustCLI(t, db, "contacts", "import", csv, "--org", orgs[0].ID, "--dry-run")
	if !strings.Contains(text, "invalid bad-address (line 3: email is not an address)") {
		t.Errorf("text answer does not name the row:\n%s", text)
	}
	_, stderr, err := runCLI(t, db, "contacts", "import", csv, "--org", "org_nope")
	if err == nil || !strings.Contains(stderr, `no organization "org_nope"`) || !strings.Contains(stderr, "app orgs list") {
		t.Fatalf("unknown organization: %v\n%s", err, stderr)
	}
}
