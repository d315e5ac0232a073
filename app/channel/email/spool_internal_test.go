package email

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
)

// TestReadDataSpoolsBigMail: a mail's data comes back whole behind its prefix; past spoolAt
// it went through a file (removed at once) into a buffer of exactly its size, where a buffer
// grown as the data came would be up to twice as big; a read that fails leaves no file.
func TestReadDataSpoolsBigMail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	prefix := []byte("{\"mail_from\":\"a@b.test\"}\n")
	for _, n := range []int{0, 100 << 10, spoolAt, spoolAt + 1, 3 << 20} {
		data := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
		body, err := readData(prefix, bytes.NewReader(data), dir)
		if err != nil || !bytes.Equal(body, append(append([]byte{}, prefix...), data...)) {
			t.Fatalf("%d bytes: %v, %d bytes back", n, err, len(body))
		}
		if n > spoolAt && cap(body) != len(body) {
			t.Fatalf("%d bytes spooled into a buffer of %d", n, cap(body))
		}
	}
	failing := io.MultiReader(bytes.NewReader(make([]byte, 2<<20)), errReader{})
	if _, err := readData(prefix, failing, dir); !errors.Is(err, errBroken) {
		t.Fatalf("a broken read: %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("spool files left behind: %v", left)
	}
}

var errBroken = errors.New("connection reset")

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errBroken }

// TestSweepSpoolLeavesOtherFiles: the spool files a crashed process left in the listener's
// directory go, nothing else there does, and no directory means nothing is swept.
func TestSweepSpoolLeavesOtherFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"mail-123.spool", "app.db", "app.db-wal", "mail-notes.txt"} {
		if err := os.WriteFile(dir+"/"+name, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sweepSpool("")
	sweepSpool(dir)
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 3 || names[0] != "app.db" || names[1] != "app.db-wal" || names[2] != "mail-notes.txt" {
		t.Fatalf("left after the sweep: %v", names)
	}
}
