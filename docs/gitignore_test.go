package docs_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestGitignoreKeepsLocalStateOut: what a server run from the clone leaves beside the
// source (its configuration, which may hold SMTP and provider credentials; the database with
// its WAL and lock files; the key that seals its secrets; the built binary) is ignored by
// git, so `git add .` cannot commit it. --no-index asks the rules, whatever is tracked.
func TestGitignoreKeepsLocalStateOut(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	if err := git("rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skip("not a git work tree")
	}
	local := []string{"config.yaml", "app.db", "app.db-wal", "app.db-shm", "app.db.lock", "app.key", "bin/app"}
	out, _ := git(append([]string{"check-ignore", "--no-index"}, local...)...).Output()
	ignored := strings.Fields(string(out))
	for _, f := range local {
		if !strings.Contains(" "+strings.Join(ignored, " ")+" ", " "+f+" ") {
			t.Errorf("%s is not ignored by .gitignore", f)
		}
	}
	// The source is not: config.example.yaml and the app/ package stay committed.
	for _, f := range []string{"config.example.yaml", "app/doc.go", "main.go"} {
		if git("check-ignore", "--no-index", "-q", f).Run() == nil {
			t.Errorf("%s is ignored", f)
		}
	}
}

// git is a git command run at the repository's root (the tests run in docs/).
func git(args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = ".."
	return cmd
}
