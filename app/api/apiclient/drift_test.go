package apiclient_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedClientIsCurrent regenerates the client from app/api/openapi.json with the
// oapi-codegen pinned in go.mod (the same command as the package's go:generate line, run
// from the module cache, offline) and fails when the committed client.gen.go differs: a
// change of the document must come with its regenerated client.
func TestGeneratedClientIsCurrent(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipped: no go command to run oapi-codegen")
	}
	// The committed configuration with only its output moved to a scratch directory
	// (oapi-codegen takes the output from the configuration, not from -o).
	cfg, err := os.ReadFile("oapi-codegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "client.gen.go")
	cfg = bytes.Replace(cfg, []byte("output: client.gen.go"), []byte("output: "+out), 1)
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goBin, "tool", "oapi-codegen", "-config", filepath.Join(dir, "config.yaml"), "../openapi.json")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen failed: %v\n%s", err, msg)
	}
	fresh, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("client.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		t.Fatalf("app/api/apiclient/client.gen.go is not what oapi-codegen makes of app/api/openapi.json: run `go generate ./app/api/apiclient/` and commit the result")
	}
}
