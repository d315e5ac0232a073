package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/cli"
	"wsapi/sqlite"
)

var cliTokenRE = regexp.MustCompile(`^sk_[0-9A-Za-z]{43}$`)

// run executes the command line in-process against db and answers stdout and stderr.
func runCLI(t *testing.T, db string, args ...string) (string, string, error) {
	t.Helper()
	cmd := cli.NewRootCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	if db != "" {
		args = append(args, "--db", db)
	}
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// must is run that fails the test on error.
func mustCLI(t *testing.T, db string, args ...string) string {
	t.Helper()
	out, errOut, err := runCLI(t, db, args...)
	if err != nil {
		t.Fatalf("app %s: %v\nstderr: %s", strings.Join(args, " "), err, errOut)
	}
	return out
}

// mustJSON runs with --json and decodes stdout into v.
func mustCLIJSON(t *testing.T, db string, v any, args ...string) {
	t.Helper()
	out := mustCLI(t, db, append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("app %s --json printed %q: %v", strings.Join(args, " "), out, err)
	}
}

// withService opens the database as the server would and runs fn against it.
func withService(t *testing.T, path string, fn func(*app.Service)) {
	t.Helper()
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fn(app.NewService(app.Deps{Store: db}))
}

// authenticates tells whether token is a working credential in the database.
func authenticates(t *testing.T, path, token string) bool {
	t.Helper()
	var ok bool
	withService(t, path, func(s *app.Service) {
		_, err := s.Authenticate(context.Background(), token)
		ok = err == nil
	})
	return ok
}

// newDatabase creates dir/app.db as an operator would (`app migrate up`) and answers its path.
func newDatabase(t *testing.T, dir string) string {
	t.Helper()
	db := filepath.Join(dir, "app.db")
	mustCLI(t, db, "migrate", "up")
	return db
}

// keys create on a database with no organization yet (made by `migrate up`) makes the
// Default organization and its owner.
func TestKeysCreateBootstrapsEmptyDatabase(t *testing.T) {
	t.Parallel()
	db := newDatabase(t, t.TempDir())
	out, errOut, err := runCLI(t, db, "keys", "create", "--name", "first")
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	token := strings.TrimSpace(out)
	if !cliTokenRE.MatchString(token) {
		t.Fatalf("stdout %q: want one sk_ token", out)
	}
	if !strings.Contains(errOut, "shown once") || strings.Contains(errOut, token) {
		t.Errorf("stderr %q: want the warning and not the token", errOut)
	}
	withService(t, db, func(s *app.Service) {
		p, err := s.Authenticate(context.Background(), token)
		if err != nil {
			t.Fatal(err)
		}
		org, err := s.GetOrg(context.Background(), p.Key.OrgID)
		if err != nil || org.Name != app.DefaultOrgName || p.Member.Role != app.RoleAdmin || p.Key.Name != "first" {
			t.Errorf("org %+v (%v), member %+v", org, err, p.Member)
		}
	})
	// A second key goes to the same organization and owner.
	second := strings.TrimSpace(mustCLI(t, db, "keys", "create", "--name", "second"))
	var orgs []app.Org
	mustCLIJSON(t, db, &orgs, "orgs", "list")
	if len(orgs) != 1 {
		t.Fatalf("orgs %v: want only Default", orgs)
	}
	var keys []app.APIKey
	mustCLIJSON(t, db, &keys, "keys", "list")
	if len(keys) != 2 || keys[0].MemberID != keys[1].MemberID {
		t.Errorf("keys %+v: want two keys of one owner", keys)
	}
	if !authenticates(t, db, second) {
		t.Error("second key does not work")
	}
}

func TestOrgsCommands(t *testing.T) {
	t.Parallel()
	db := newDatabase(t, t.TempDir())
	id := strings.TrimSpace(mustCLI(t, db, "orgs", "create", "--name", "A"))
	if !regexp.MustCompile(`^org_[0-9A-Za-z]{20}$`).MatchString(id) {
		t.Fatalf("orgs create printed %q", id)
	}
	var child app.Org
	mustCLIJSON(t, db, &child, "orgs", "create", "--name", "A child", "--parent", id)
	if child.ParentOrgID == nil || *child.ParentOrgID != id {
		t.Fatalf("child %+v", child)
	}
	var orgs []app.Org
	mustCLIJSON(t, db, &orgs, "orgs", "list")
	found := map[string]app.Org{}
	for _, o := range orgs {
		found[o.ID] = o
	}
	if found[id].Name != "A" || found[child.ID].Name != "A child" || len(orgs) != 2 {
		t.Fatalf("orgs list %+v", orgs)
	}
	if text := mustCLI(t, db, "orgs", "list"); !strings.Contains(text, id) || !strings.Contains(text, "NAME") {
		t.Errorf("orgs list for people:\n%s", text)
	}

	if out := mustCLI(t, db, "orgs", "balance", id, "--set", "0"); out != id+" balance 0\n" {
		t.Errorf("balance printed %q", out)
	}
	var org app.Org
	mustCLIJSON(t, db, &org, "orgs", "balance", id, "--set", "-2.5")
	if org.Balance != -2.5 {
		t.Errorf("balance %v", org.Balance)
	}
	withService(t, db, func(s *app.Service) {
		if o, _ := s.GetOrg(context.Background(), id); o.Balance != -2.5 {
			t.Errorf("stored balance %v", o.Balance)
		}
	})

	failures := []struct {
		name string
		args []string
		want string
	}{
		{"create without name", []string{"orgs", "create"}, "name"},
		{"create with blank name", []string{"orgs", "create", "--name", " "}, "name"},
		{"create under unknown parent", []string{"orgs", "create", "--name", "x", "--parent", "org_nope"}, "not found"},
		{"balance of unknown org", []string{"orgs", "balance", "org_nope", "--set", "1"}, "not found"},
		{"balance without --set", []string{"orgs", "balance", id}, "set"},
		{"balance not a number", []string{"orgs", "balance", id, "--set", "lots"}, "lots"},
	}
	for _, f := range failures {
		t.Run(f.name, func(t *testing.T) {
			_, errOut, err := runCLI(t, db, f.args...)
			if err == nil || !strings.Contains(err.Error()+errOut, f.want) {
				t.Errorf("err %v, stderr %q: want a failure naming %q", err, errOut, f.want)
			}
		})
	}
}

func TestKeysCommands(t *testing.T) {
	t.Parallel()
	db := newDatabase(t, t.TempDir())
	admin := strings.TrimSpace(mustCLI(t, db, "keys", "create", "--name", "admin"))
	orgID := strings.TrimSpace(mustCLI(t, db, "orgs", "create", "--name", "Other"))
	var other app.NewKey
	mustCLIJSON(t, db, &other, "keys", "create", "--name", "other owner", "--org", orgID)
	if other.OrgID != orgID || !cliTokenRE.MatchString(other.Token) {
		t.Fatalf("key of another org %+v", other)
	}

	var all, only []map[string]any
	mustCLIJSON(t, db, &all, "keys", "list")
	mustCLIJSON(t, db, &only, "keys", "list", "--org", orgID)
	if len(all) != 2 || len(only) != 1 || only[0]["ID"] != nil && only[0]["id"] != other.ID {
		t.Fatalf("keys list %v, --org %v", all, only)
	}
	for _, k := range all {
		for field := range k {
			if strings.Contains(strings.ToLower(field), "token") || strings.Contains(strings.ToLower(field), "hash") {
				t.Errorf("keys list shows %s", field)
			}
		}
	}
	if text := mustCLI(t, db, "keys", "list"); strings.Contains(text, admin) || !strings.Contains(text, admin[:8]) {
		t.Errorf("keys list for people shows the token or no preview:\n%s", text)
	}

	rotated := strings.TrimSpace(mustCLI(t, db, "keys", "rotate", other.ID))
	if !cliTokenRE.MatchString(rotated) || rotated == other.Token {
		t.Fatalf("rotate printed %q", rotated)
	}
	if authenticates(t, db, other.Token) || !authenticates(t, db, rotated) {
		t.Error("after rotate the old token must fail and the new one work")
	}
	if out := mustCLI(t, db, "keys", "delete", other.ID); !strings.Contains(out, other.ID) {
		t.Errorf("delete printed %q", out)
	}
	if authenticates(t, db, rotated) {
		t.Error("a deleted key still works")
	}
	if !authenticates(t, db, admin) {
		t.Error("the admin key stopped working")
	}

	failures := []struct {
		name string
		args []string
		want string
	}{
		{"delete twice", []string{"keys", "delete", other.ID}, "not found"},
		{"rotate unknown", []string{"keys", "rotate", "key_nope"}, "not found"},
		{"create without name", []string{"keys", "create"}, "name"},
		{"create for unknown org", []string{"keys", "create", "--name", "x", "--org", "org_nope"}, "not found"},
		{"create for unknown member", []string{"keys", "create", "--name", "x", "--member", "mem_nope"}, "not found"},
	}
	for _, f := range failures {
		t.Run(f.name, func(t *testing.T) {
			_, errOut, err := runCLI(t, db, f.args...)
			if err == nil || !strings.Contains(err.Error()+errOut, f.want) {
				t.Errorf("err %v, stderr %q: want a failure naming %q", err, errOut, f.want)
			}
		})
	}
}

func TestMigrateCommands(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "app.db")
	var applied []sqlite.MigrationResult
	mustCLIJSON(t, db, &applied, "migrate", "up")
	if len(applied) == 0 || applied[0].Version != 1 {
		t.Fatalf("migrate up on an empty database applied %+v", applied)
	}
	if out := mustCLI(t, db, "migrate", "up"); out != "0 migration(s) applied\n" {
		t.Errorf("second migrate up printed %q", out)
	}
	status := func() (applied, pending int) {
		var st []sqlite.MigrationStatus
		mustCLIJSON(t, db, &st, "migrate", "status")
		for _, s := range st {
			if s.Applied {
				applied++
			} else {
				pending++
			}
		}
		return applied, pending
	}
	if a, p := status(); a != len(applied) || p != 0 {
		t.Fatalf("status: %d applied, %d pending", a, p)
	}
	if text := mustCLI(t, db, "migrate", "status"); !strings.Contains(text, "00001_access.sql") || !strings.Contains(text, "applied") {
		t.Errorf("status for people:\n%s", text)
	}
	if out := mustCLI(t, db, "migrate", "down"); !strings.HasPrefix(out, "rolled back ") {
		t.Errorf("down printed %q", out)
	}
	if a, p := status(); a != len(applied)-1 || p != 1 {
		t.Fatalf("after down: %d applied, %d pending", a, p)
	}
	if out := mustCLI(t, db, "migrate", "up"); out != "1 migration(s) applied\n" {
		t.Errorf("up after down printed %q", out)
	}
	if a, p := status(); a != len(applied) || p != 0 {
		t.Fatalf("after up: %d applied, %d pending", a, p)
	}
}

func TestBackup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := newDatabase(t, dir)
	token := strings.TrimSpace(mustCLI(t, db, "keys", "create", "--name", "k"))
	id := strings.TrimSpace(mustCLI(t, db, "orgs", "create", "--name", "Backed up"))
	copyPath := filepath.Join(dir, "copy.db")
	_, errOut, err := runCLI(t, db, "backup", copyPath)
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	if !strings.Contains(errOut, "backing up") {
		t.Errorf("no progress on stderr: %q", errOut)
	}
	withService(t, copyPath, func(s *app.Service) {
		orgs, err := s.ListOrgs(context.Background())
		if err != nil || len(orgs) != 2 {
			t.Fatalf("backup has orgs %+v (%v)", orgs, err)
		}
		if o, err := s.GetOrg(context.Background(), id); err != nil || o.Name != "Backed up" {
			t.Errorf("backup lacks %s: %v", id, err)
		}
		if _, err := s.Authenticate(context.Background(), token); err != nil {
			t.Errorf("the key does not work in the backup: %v", err)
		}
	})
	if _, _, err := runCLI(t, db, "backup", copyPath); err == nil {
		t.Error("a backup over an existing file must fail, not overwrite it")
	}
	if _, err := os.Stat(copyPath); err != nil {
		t.Error(err)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	want := cli.ReadBuildInfo()
	if out := mustCLI(t, "", "version"); !strings.HasPrefix(out, "app "+cli.Version) || !strings.Contains(out, runtime.Version()) {
		t.Errorf("version printed %q", out)
	}
	var v cli.BuildInfo
	mustCLIJSON(t, "", &v, "version")
	if v != want || v.Go != runtime.Version() {
		t.Errorf("version --json %+v, want %+v", v, want)
	}
}

// The shipped binary, built in a git checkout, names the commit it was built from.
func TestVersionOfTheBuiltBinaryNamesItsCommit(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("not a git checkout:", err)
	}
	if dirs, _ := exec.Command("git", "rev-parse", "--git-dir", "--git-common-dir").Output(); len(strings.Fields(string(dirs))) == 2 &&
		strings.Fields(string(dirs))[0] != strings.Fields(string(dirs))[1] {
		t.Skip("a linked worktree: go stamps VCS information only in a plain checkout")
	}
	out, err := exec.Command(builtBinary(t), "version", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var v cli.BuildInfo
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	if v.Commit != strings.TrimSpace(string(head)) || v.CommitTime == "" || v.Go != runtime.Version() {
		t.Errorf("version %+v, want commit %s", v, head)
	}
}

func TestUnknownCommandFails(t *testing.T) {
	t.Parallel()
	if _, _, err := runCLI(t, "", "frobnicate"); err == nil {
		t.Error("an unknown command must fail")
	}
	if _, _, err := runCLI(t, "", "keys", "list", "--nope"); err == nil {
		t.Error("an unknown flag must fail")
	}
}
