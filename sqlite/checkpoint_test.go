package sqlite_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"wsapi/app"
)

// TestCheckpointsRunInTheBackground: the writer never copies the WAL into the database file
// (wal_autocheckpoint 0); the checkpointer does, after commits. Without it the file would
// not grow by the megabyte written here until the last connection closed.
func TestCheckpointsRunInTheBackground(t *testing.T) {
	t.Parallel()
	db, path := openDB(t)
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	waitFor(t, "the migrations copied into the file", func() bool { return size() > 0 })
	before := size()
	big := strings.Repeat("x", 4000)
	for i := range 250 {
		now := app.At(time.Now())
		err := db.Write(bg, func(tx app.Tx) error {
			return tx.CreateOrg(app.Org{ID: app.NewID("org"), Name: big, Plan: app.PlanFree, CreatedAt: now, UpdatedAt: now})
		})
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	waitFor(t, "the writes copied into the file", func() bool { return size() >= before+1_000_000 })
}

// waitFor polls cond until it holds, or fails the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
	}
}
