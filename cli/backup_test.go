package cli_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// call sends a JSON request with token and answers the status and decoded object.
func call(t *testing.T, method, url, token string, body any) (int, map[string]any) {
	t.Helper()
	return callWith(t, http.DefaultClient, method, url, token, body)
}

// callWith is call through client; an empty token sends no Authorization header.
func callWith(t *testing.T, client *http.Client, method, url, token string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m
}

func wantPerm(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s is %04o, want 0600", filepath.Base(path), fi.Mode().Perm())
	}
}

// copyFile copies as an operator restoring a backup would (cp keeps the source's mode).
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestBackupRestoresSecrets: the live database, its -wal and -shm, the hook's spool beside
// it, the secrets key, the backup and the backup's key are all 0600; the backup restored with its key (the procedure
// of docs/operations.md) serves the webhook and the connection, whose secrets it opens; the
// same backup with another key makes serve refuse to start, exit 1, with a clear message.
func TestBackupRestoresSecrets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "app.db")
	env := "APP_WEBHOOKS_ALLOW_PRIVATE_TARGETS=true"
	s := startServe(t, dir, db, env)
	token := bannerTokenRE.FindString(s.log())
	base := "http://" + s.addr + "/orgs/c"
	st, wh := call(t, "POST", base+"/webhooks", token, map[string]any{"name": "orders",
		"url": "https://127.0.0.1:9/hook", "events": []string{"contact.blocked"}})
	if st != 201 {
		t.Fatalf("create webhook: %d %v", st, wh)
	}
	st, conn := call(t, "POST", base+"/connections", token, map[string]any{"type": "HTTP_CREDENTIALS",
		"name": "Billing", "config": map[string]any{"base_url": "https://billing.example.com"},
		"secrets": map[string]any{"token": "tok-backed-up"}})
	if st != 201 {
		t.Fatalf("create connection: %d %v", st, conn)
	}
	for _, f := range []string{"app.db", "app.db-wal", "app.db-shm", "app.db-spool", "app.key"} {
		wantPerm(t, filepath.Join(dir, f))
	}

	backup := filepath.Join(dir, "nightly.db")
	out, err := exec.Command(appBinary(t), "backup", backup, "--db", db).CombinedOutput()
	if err != nil {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), backup+".key") {
		t.Errorf("backup does not say where the key went:\n%s", out)
	}
	wantPerm(t, backup)
	wantPerm(t, backup+".key")
	if code := s.stop(); code != 0 {
		t.Fatalf("exit code %d", code)
	}

	restored := t.TempDir()
	copyFile(t, backup, filepath.Join(restored, "app.db"))
	copyFile(t, backup+".key", filepath.Join(restored, "app.key"))
	r := startServe(t, restored, filepath.Join(restored, "app.db"), env)
	rbase := "http://" + r.addr + "/orgs/c"
	// The answer shows the start of the opened secret (masked).
	st, got := call(t, "GET", rbase+"/webhooks/"+wh["id"].(string), token, nil)
	masked, _ := got["secret"].(string)
	if st != 200 || len(masked) < 10 || !strings.HasPrefix(wh["secret"].(string), strings.TrimSuffix(masked, "…")) {
		t.Errorf("restored webhook: %d %v, want the start of the secret %v", st, got, wh["secret"])
	}
	if st, got := call(t, "GET", rbase+"/connections/"+conn["id"].(string), token, nil); st != 200 || got["name"] != "Billing" {
		t.Errorf("restored connection: %d %v", st, got)
	}
	if code := r.stop(); code != 0 {
		t.Fatalf("exit code %d", code)
	}

	// The same database with a key that is not its own.
	other := make([]byte, 32)
	_, _ = rand.Read(other)
	if err := os.WriteFile(filepath.Join(restored, "app.key"), other, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(appBinary(t), "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(restored, "app.db"))
	cmd.Dir = restored
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err = <-exited:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("serve with a wrong key did not exit:\n%s", stderr.String())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("serve with a wrong key: %v, want exit 1\n%s", err, stderr.String())
	}
	msg := stderr.String()
	for _, want := range []string{"error: the secrets key", "cannot open the secrets stored in", "wrong secrets key", ".key"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "msg=serving") {
		t.Errorf("serve listened before refusing:\n%s", msg)
	}
}
