package sqlite

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"wsapi/app"
)

// TestReadApartRunsAtOnceAsOneRead: the parts run at once, each on a reader of its own;
// when a commit lands while they run they all run again, one after another in one
// transaction, so every part answers from the same state; the first part's error (in the
// order given) is the answer; a part's panic is raised again on the caller's goroutine.
func TestReadApartRunsAtOnceAsOneRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openInternal(t)
	other, err := Open(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	const n = 3

	t.Run("at once", func(t *testing.T) {
		var started sync.WaitGroup
		started.Add(n)
		all := make(chan struct{})
		go func() { started.Wait(); close(all) }()
		together := make([]bool, n)
		parts := make([]func(app.Tx) error, n)
		for i := range parts {
			parts[i] = func(tx app.Tx) error {
				if _, err := tx.AuthVersion(); err != nil { // the transaction holds a reader from here
					return err
				}
				started.Done()
				select {
				case <-all:
					together[i] = true
				case <-time.After(5 * time.Second):
				}
				return nil
			}
		}
		if err := db.ReadApart(ctx, parts...); err != nil {
			t.Fatal(err)
		}
		for i, ok := range together {
			if !ok {
				t.Errorf("part %d did not run while the others held their readers", i)
			}
		}
	})

	t.Run("a commit meanwhile", func(t *testing.T) {
		var calls atomic.Int32
		seen := make([]int64, n)
		parts := make([]func(app.Tx) error, n)
		for i := range parts {
			parts[i] = func(tx app.Tx) (err error) {
				calls.Add(1)
				if seen[i], err = tx.AuthVersion(); err != nil {
					return err
				}
				if i == 0 && calls.Load() <= n { // the first run: another process commits
					_, err = other.writer.ExecContext(ctx, `UPDATE auth_version SET version = version + 1`)
				}
				return err
			}
		}
		if err := db.ReadApart(ctx, parts...); err != nil {
			t.Fatal(err)
		}
		if c := calls.Load(); c != 2*n {
			t.Fatalf("%d calls of the parts, want %d (all again after the commit)", c, 2*n)
		}
		want, _ := db.AuthVersion(ctx)
		for i, v := range seen {
			if v != want {
				t.Errorf("part %d read version %d, want %d like the others", i, v, want)
			}
		}
	})

	t.Run("the first error", func(t *testing.T) {
		second, third := errors.New("second"), errors.New("third")
		err := db.ReadApart(ctx,
			func(app.Tx) error { return nil },
			func(app.Tx) error { time.Sleep(10 * time.Millisecond); return second },
			func(app.Tx) error { return third })
		if !errors.Is(err, second) {
			t.Errorf("error %v, want the second part's", err)
		}
	})

	t.Run("a panic", func(t *testing.T) {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want the part's panic", r)
			}
		}()
		db.ReadApart(ctx, func(app.Tx) error { return nil }, func(app.Tx) error { panic("boom") })
		t.Error("ReadApart returned after a part panicked")
	})
}
