package cli_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"wsapi/app/signin"
	"wsapi/cli"
	"wsapi/sqlite"
)

var setupLinkRE = regexp.MustCompile(`(http://\S+)/app/setup\?token=(pl_[0-9A-Za-z]{43})`)

// The first start's banner prints the owner's one-time set-up link; it opens the page that
// sets the password and signs in, through the real binary.
func TestServeBannerLeadsToSignIn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServe(t, dir, filepath.Join(dir, "app.db"))
	m := setupLinkRE.FindStringSubmatch(s.log())
	if m == nil || !strings.Contains(s.log(), "Sign in to the inbox") || !strings.Contains(s.log(), "app members password owner@example.invalid") {
		t.Fatalf("no set-up link in the banner:\n%s", s.log())
	}
	base := "http://" + s.addr
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(base + "/app/setup?token=" + m[2])
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("set-up page: %v %v", err, res)
	}
	res.Body.Close()
	form := url.Values{"token": {m[2]}, "password": {"a fine password"}, "password_again": {"a fine password"}}
	req, _ := http.NewRequest("POST", base+"/app/setup", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	res, err = client.Do(req)
	if err != nil || res.StatusCode != http.StatusSeeOther || !strings.Contains(res.Header.Get("Set-Cookie"), "session=ws_") {
		t.Fatalf("set password: %v %v", err, res)
	}
	res.Body.Close()
	if s.stop() != 0 {
		t.Fatalf("serve did not stop cleanly:\n%s", s.log())
	}
	if strings.Contains(s.log(), "a fine password") || strings.Count(s.log(), m[2]) != 1 {
		t.Fatal("the password or the link reached the log")
	}
	if !strings.Contains(s.log(), `msg="web request" method=POST path=/app/setup status=303`) {
		t.Fatalf("no access log line of the set-up:\n%s", s.log())
	}
}

// `app members password EMAIL` reads the password from stdin, sets it and ends sessions;
// an unknown email and a short password are refused and change nothing.
func TestMembersPasswordCommand(t *testing.T) {
	t.Parallel()
	db := newDatabase(t, t.TempDir())
	mustCLI(t, db, "keys", "create", "--name", "first") // makes the owner, owner@example.invalid
	run := func(stdin string, args ...string) (string, error) {
		cmd := cli.NewRootCmd()
		var out, errOut bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&errOut)
		cmd.SetIn(strings.NewReader(stdin))
		cmd.SetArgs(append(args, "--db", db))
		err := cmd.ExecuteContext(context.Background())
		return out.String() + errOut.String(), err
	}
	if out, err := run("short\n", "members", "password", "owner@example.invalid"); err == nil || !strings.Contains(out+err.Error(), "at least 10 characters") {
		t.Fatalf("short password: %v %s", err, out)
	}
	if out, err := run("long enough password\n", "members", "password", "nobody@localhost"); err == nil || !strings.Contains(out+err.Error(), "not found") {
		t.Fatalf("unknown email: %v %s", err, out)
	}
	signIn := func(pw string) error {
		store, err := sqlite.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		_, err = signin.New(store, nil).SignIn(context.Background(), "owner@example.invalid", pw, "127.0.0.1", "test")
		return err
	}
	if signIn("long enough password") == nil {
		t.Fatal("a refused command set a password")
	}
	if out, err := run("long enough password\n", "members", "password", "OWNER@example.invalid"); err != nil || !strings.Contains(out, "password set for owner@example.invalid") {
		t.Fatalf("set: %v %s", err, out)
	}
	if err := signIn("long enough password"); err != nil {
		t.Fatalf("sign in with the new password: %v", err)
	}
}
