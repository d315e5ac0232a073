package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"wsapi/app"
)

// A read runs its statements detached from the caller's cancellation (no watcher goroutine
// per statement) but still stops at the next statement once the caller's context ends, and
// does not begin at all on an ended context.
func TestReadStopsAfterCancel(t *testing.T) {
	t.Parallel()
	db, err := Open(filepath.Join(t.TempDir(), "cancel.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err = db.Read(ctx, func(tx app.Tx) error {
		t := tx.(*Tx)
		if _, err := t.count(`SELECT 1`); err != nil {
			return err
		}
		cancel()
		_, err := t.count(`SELECT 2`)
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a statement after the cancel answered %v", err)
	}
	if err := db.Read(ctx, func(app.Tx) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("a read on an ended context answered %v", err)
	}
}
