package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/cli"
)

// `app contacts import` classifies with the bulk rules; --dry-run writes nothing; the real
// run creates the contacts and adds them to --segment; progress goes to stderr only.
func TestContactsImportCSV(t *testing.T) {
	dir := t.TempDir()
	db := newDatabase(t, dir)
	if _, _, err := runCLI(t, db, "keys", "create", "--name", "k"); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLI(t, db, "orgs", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var orgs []app.Org
	if err := json.Unmarshal([]byte(out), &orgs); err != nil || len(orgs) != 1 {
		t.Fatalf("orgs %s %v", out, err)
	}
	csv := filepath.Join(dir, "c.csv")
	data := "name,email,phone\nAnn,ann@example.com,\nBob,,+1 555 1234\nBad,not-an-email,\nAnn again,ANN@example.com,\n"
	if err := os.WriteFile(csv, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	var res app.BulkResult
	out, errOut, err := runCLI(t, db, "contacts", "import", csv, "--org", orgs[0].ID, "--dry-run", "--json")
	if err != nil {
		t.Fatalf("dry run: %v %s", err, errOut)
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Created) != 2 || len(res.Invalid) != 2 {
		t.Fatalf("dry run answer %s (%v)", out, err)
	}
	// stderr is not a terminal here: plain lines, no redrawn bar.
	if !strings.Contains(errOut, "reading: 100%\n") || strings.Contains(errOut, "\r") {
		t.Fatalf("progress on a non-terminal stderr: %q", errOut)
	}
	out, _, err = runCLI(t, db, "contacts", "import", csv, "--org", orgs[0].ID)
	if err != nil || !strings.Contains(out, "2 created, 0 updated, 2 invalid") || !strings.Contains(out, "not-an-email") {
		t.Fatalf("import: %v %s", err, out)
	}
	seg := segmentIn(t, db, orgs[0].ID)
	out, _, err = runCLI(t, db, "contacts", "import", csv, "--org", orgs[0].ID, "--segment", seg)
	if err != nil || !strings.Contains(out, "0 created, 2 updated") {
		t.Fatalf("second import: %v %s", err, out)
	}
	rt, err := cli.Build(context.Background(), configFor(db), cli.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	got, err := rt.Service.GetSegment(context.Background(), orgs[0].ID, seg)
	if err != nil || got.ContactsCount != 2 {
		t.Fatalf("segment after import: %+v %v", got, err)
	}
	if _, errOut, err := runCLI(t, db, "contacts", "import", csv, "--org", orgs[0].ID, "--segment", "seg_missing"); err == nil ||
		!strings.Contains(errOut, "segment") {
		t.Fatalf("unknown segment: %v %s", err, errOut)
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("nickname\nx\n"), 0o600)
	if _, errOut, err := runCLI(t, db, "contacts", "import", bad, "--org", orgs[0].ID); err == nil || !strings.Contains(errOut, "nickname") {
		t.Fatalf("bad header: %v %s", err, errOut)
	}
}

func configFor(db string) cli.Config {
	cfg := cli.DefaultConfig()
	cfg.DB.Path = db
	return cfg
}

// segmentIn makes a segment through the service on the CLI's database.
func segmentIn(t *testing.T, db, org string) string {
	t.Helper()
	rt, err := cli.Build(context.Background(), configFor(db), cli.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	name := "Imported"
	seg, err := rt.Service.CreateSegment(context.Background(), org, app.SegmentInput{Name: &name})
	if err != nil {
		t.Fatal(err)
	}
	return seg.ID
}
