package docs_test

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"
)

// repo is the repository's root: the tests run in docs/.
var repo = os.DirFS("..")

// TestArchitectureIsAMapOfEveryPackage: docs/architecture.md stays a map (at most 150 lines;
// the walk-throughs live in docs/internals/) and names every package of app/, cli/ and
// sqlite/ in its table, so a package added without a line on the map fails here; every
// internals page and decision record it links exists.
func TestArchitectureIsAMapOfEveryPackage(t *testing.T) {
	t.Parallel()
	b, err := fs.ReadFile(repo, "docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	if n := strings.Count(doc, "\n"); n > 150 {
		t.Errorf("docs/architecture.md has %d lines: a map holds at most 150 (move walk-throughs to docs/internals/)", n)
	}
	for _, root := range []string{"app", "cli", "sqlite"} {
		err := fs.WalkDir(repo, root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if d.Name() == "testdata" {
				return fs.SkipDir
			}
			if hasGoCode(t, path) && !strings.Contains(doc, "`"+path+"/`") {
				t.Errorf("docs/architecture.md names no package %s/: give it a line in the table", path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{"internals", "decisions"} {
		for _, part := range strings.Split(doc, "]("+dir+"/")[1:] {
			name, _, _ := strings.Cut(part, ")")
			name, _, _ = strings.Cut(name, "#")
			if _, err := fs.Stat(repo, path.Join("docs", dir, name)); err != nil {
				t.Errorf("docs/architecture.md links %s/%s, which does not exist", dir, name)
			}
		}
	}
}

// hasGoCode tells whether dir holds a Go file that is not a test.
func hasGoCode(t *testing.T, dir string) bool {
	entries, err := fs.ReadDir(repo, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			return true
		}
	}
	return false
}
