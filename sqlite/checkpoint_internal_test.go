package sqlite

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"wsapi/app"
)

// TestWriterRestartsTheWALWhenDue: with no background copier (stopped here), nothing can
// make the WAL start over but the writer's own checkpoint between two batches, which it runs
// once the copier has found the WAL past resetAt (set by hand here). After it the WAL holds
// only what came since; without it, everything ever written.
func TestWriterRestartsTheWALWhenDue(t *testing.T) {
	t.Parallel()
	db := openInternal(t)
	if err := db.ckpt.close(); err != nil {
		t.Fatal(err)
	}
	db.ckpt.resetAt = 50
	name := strings.Repeat("x", 1000)
	write := func(n int) {
		for i := range n {
			now := app.At(time.Now())
			err := db.Write(context.Background(), func(tx app.Tx) error {
				return tx.CreateOrg(app.Org{ID: app.NewID("org"), Name: name, Plan: app.PlanFree, CreatedAt: now, UpdatedAt: now})
			})
			if err != nil {
				t.Fatalf("write %d: %v", i, err)
			}
		}
	}
	write(400)
	fi, err := os.Stat(db.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	before := int(fi.Size() / (4096 + 24)) // a frame is a page and its header
	db.ckpt.due.Store(true)
	write(200)
	after, err := checkpoint(db.writer)
	if err != nil {
		t.Fatal(err)
	}
	if after >= before || db.ckpt.due.Load() {
		t.Fatalf("the WAL holds %d frames after the restart was due at %d (still due: %v)", after, before, db.ckpt.due.Load())
	}
}
