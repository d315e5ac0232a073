package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"wsapi/app"
)

// Writes that run at once are committed in batches (batch.go): one that fails or panics
// must undo its own writes only, answer its own error or panic, and leave every other write
// of its batch committed (run with -race).
func TestWriteBatchUndoesOnlyTheFailedWrite(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	boom := errors.New("boom")
	const n = 90
	var wg sync.WaitGroup
	outcomes := make([]string, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			defer func() {
				if v := recover(); v != nil {
					outcomes[i] = fmt.Sprint("panic ", v)
				}
			}()
			now := app.At(time.Now())
			err := db.Write(bg, func(tx app.Tx) error {
				if err := tx.CreateOrg(app.Org{ID: fmt.Sprintf("org_%03d", i), Name: "o", Plan: app.PlanFree, CreatedAt: now, UpdatedAt: now}); err != nil {
					return err
				}
				switch i % 3 {
				case 1:
					return boom
				case 2:
					panic(i)
				}
				return nil
			})
			outcomes[i] = fmt.Sprint(err)
		})
	}
	close(start)
	wg.Wait()
	for i, got := range outcomes {
		want := map[int]string{0: "<nil>", 1: "boom", 2: fmt.Sprint("panic ", i)}[i%3]
		if got != want {
			t.Errorf("write %d answered %q, want %q", i, got, want)
		}
	}
	err := db.Read(bg, func(tx app.Tx) error {
		orgs, err := tx.ListOrgs()
		if err != nil {
			return err
		}
		kept := map[string]bool{}
		for _, o := range orgs {
			kept[o.ID] = true
		}
		for i := range n {
			if id := fmt.Sprintf("org_%03d", i); kept[id] != (i%3 == 0) {
				t.Errorf("org %s kept %v after write %d answered %q", id, kept[id], i, outcomes[i])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A write whose context ended before its turn runs nothing and answers the context's error.
func TestWriteWithEndedContextRunsNothing(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	ctx, cancel := context.WithCancel(bg)
	cancel()
	ran := false
	err := db.Write(ctx, func(tx app.Tx) error { ran = true; return nil })
	if !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("write answered %v, ran %v", err, ran)
	}
}
