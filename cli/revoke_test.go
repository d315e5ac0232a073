package cli_test

import (
	"path/filepath"
	"testing"
)

// TestServeSeesAKeyDeletedByAnotherProcess: the server skips reading the authentication
// version while nothing was committed (the WAL index's stamp, sqlite/walindex.go); a key the
// CLI deletes from another process must fail on the server's very next request.
func TestServeSeesAKeyDeletedByAnotherProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "app.db")
	s := startServe(t, dir, db)
	defer s.stop()
	admin := bannerTokenRE.FindString(s.log())
	base := "http://" + s.addr
	status, key := call(t, "POST", base+"/orgs/c/keys", admin, map[string]any{"name": "doomed"})
	if status != 201 {
		t.Fatalf("create key: %d %v", status, key)
	}
	token, _ := key["token"].(string)
	for range 3 { // the principal and the version are cached from here on
		if status, _ := call(t, "GET", base+"/orgs/c", token, nil); status != 200 {
			t.Fatalf("GET with the new key: %d", status)
		}
	}
	out, err := binCmd(t, dir, nil, "keys", "delete", key["id"].(string), "--db", db).CombinedOutput()
	if err != nil {
		t.Fatalf("app keys delete: %v\n%s", err, out)
	}
	if status, _ := call(t, "GET", base+"/orgs/c", token, nil); status != 401 {
		t.Fatalf("the next request with a key deleted by another process: %d, want 401", status)
	}
	if status, _ := call(t, "GET", base+"/orgs/c", admin, nil); status != 200 {
		t.Fatalf("the admin key after the delete: %d", status)
	}
}
