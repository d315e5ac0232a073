package sqlite

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"wsapi/app"
)

// TestBatchWhoseFirstWriteFails: the first write of a transaction runs without a savepoint,
// so when it fails the whole transaction is undone and the rest of the batch runs in a new
// one, each write still answered its own outcome.
func TestBatchWhoseFirstWriteFails(t *testing.T) {
	t.Parallel()
	db := openInternal(t)
	boom := errors.New("boom")
	org := func(id string, outcome error, panics bool) *writeCall {
		return &writeCall{ctx: context.Background(), queued: time.Now(), done: make(chan writeResult, 1), lead: make(chan struct{}, 1),
			fn: func(tx app.Tx) error {
				now := app.At(time.Now())
				if err := tx.CreateOrg(app.Org{ID: id, Name: "o", Plan: app.PlanFree, CreatedAt: now, UpdatedAt: now}); err != nil {
					return err
				}
				if panics {
					panic(id)
				}
				return outcome
			}}
	}
	type write struct {
		id     string
		err    error
		panics bool
	}
	for _, c := range []struct {
		name   string
		writes []write
		want   []string // each write's answer
		kept   []string // the orgs stored afterwards
	}{
		{"first fails", []write{{"org_a1", boom, false}, {"org_a2", nil, false}, {"org_a3", boom, false}, {"org_a4", nil, false}},
			[]string{"boom", "<nil>", "boom", "<nil>"}, []string{"org_a2", "org_a4"}},
		{"first panics, then the next first fails", []write{{"org_b1", nil, true}, {"org_b2", boom, false}, {"org_b3", nil, false}},
			[]string{"panic org_b1", "boom", "<nil>"}, []string{"org_b3"}},
		{"the only write fails", []write{{"org_c1", boom, false}}, []string{"boom"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var batch []*writeCall
			for _, w := range c.writes {
				batch = append(batch, org(w.id, w.err, w.panics))
			}
			db.runBatch(batch)
			for i, w := range batch {
				r := <-w.done
				got := fmt.Sprint(r.err)
				if r.panicked != nil {
					got = fmt.Sprint("panic ", r.panicked)
				}
				if got != c.want[i] {
					t.Errorf("write %d answered %q, want %q", i, got, c.want[i])
				}
			}
			stored := map[string]bool{}
			err := db.Read(context.Background(), func(tx app.Tx) error {
				orgs, err := tx.ListOrgs()
				for _, o := range orgs {
					stored[o.ID] = true
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.writes {
				if want := slices.Contains(c.kept, w.id); stored[w.id] != want {
					t.Errorf("%s stored: %v, want %v", w.id, stored[w.id], want)
				}
			}
		})
	}
}

// TestWritesQueuedOnOneCoreCommitTogether: on one core nothing else runs while the leader
// works, so a leader that went straight to work would commit alone, again and again; it
// first lets the goroutines that are ready run, and their writes join its batch. Not
// parallel: it sets GOMAXPROCS for the whole binary.
func TestWritesQueuedOnOneCoreCommitTogether(t *testing.T) {
	db := openInternal(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var batches atomic.Int32
	db.ObserveWriteBatch(func(int) { batches.Add(1) })
	const writers = 32
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			now := app.At(time.Now())
			err := db.Write(context.Background(), func(tx app.Tx) error {
				return tx.CreateOrg(app.Org{ID: fmt.Sprintf("org_q%02d", i), Name: "o", Plan: app.PlanFree, CreatedAt: now, UpdatedAt: now})
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := batches.Load(); n > writers/4 {
		t.Fatalf("%d writes started together took %d commits", writers, n)
	}
}
