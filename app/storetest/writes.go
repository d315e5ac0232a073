package storetest

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"

	"wsapi/app"
)

// writesAreSerialized: the service reads, decides and writes inside one Write without locks
// of its own (a unique name, the next position, a balance), which holds only if no two write
// transactions interleave. Each of many concurrent writes counts the contacts and creates one
// named after the count: serialized, the names are 0..n-1, each once.
func writesAreSerialized(t *testing.T, e *env) {
	const writers, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				errs <- e.store.Write(e.ctx, func(tx app.Tx) error {
					n, err := contactCount(tx, e.org)
					if err != nil {
						return err
					}
					return tx.CreateContact(e.newContact(e.org, strconv.Itoa(n)))
				})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	e.read(func(tx app.Tx) error {
		l, _, err := tx.ListContacts(e.org, app.ContactFilter{}, app.Page{Page: 1, Take: app.MaxTake})
		for _, c := range l {
			names = append(names, c.Name)
		}
		return err
	})
	want := make([]string, writers*each)
	for i := range want {
		want[i] = strconv.Itoa(i)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("concurrent read-then-write transactions interleaved: names %v, want each of 0..%d once", names, len(want)-1)
	}
}

// streamSeqsFollowCommitOrder: the event hub and every SSE client resume "after the last
// seq seen". That never skips an event only if a seq is visible to readers no later than
// every smaller seq, that is if seqs follow commit order. Concurrent writes each store two
// events while a follower reads after its last seq again and again: it must see every event
// once, in seq order, a write's two events in the order they were written.
func streamSeqsFollowCommitOrder(t *testing.T, e *env) {
	const writers, each = 6, 20
	type mark struct{ W, I, K int }
	var wg sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, writers*each+1)
	// Taken before any writer starts: events committed before it would be skipped.
	start := e.lastSeq()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				errs <- e.store.Write(e.ctx, func(tx app.Tx) error {
					for k := range 2 {
						data, _ := json.Marshal(mark{w, i, k})
						ev := app.StreamEvent{OrgID: e.org, Type: app.StreamChatUpdated, Area: "inbox", Data: data,
							CreatedAt: app.At(e.clock.Now())}
						if _, err := tx.InsertStreamEvent(ev); err != nil {
							return err
						}
					}
					return nil
				})
			}
		}()
	}
	var seen []app.StreamEvent
	follow := func() error {
		after := start
		if len(seen) > 0 {
			after = seen[len(seen)-1].Seq
		}
		return e.store.Read(e.ctx, func(tx app.Tx) error {
			got, err := tx.StreamEventsAfter(e.org, "", after, 50)
			seen = append(seen, got...)
			return err
		})
	}
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		for {
			select {
			case <-done:
				errs <- follow() // what the last writes committed
				return
			default:
				if err := follow(); err != nil {
					errs <- err
					return
				}
			}
		}
	}()
	wg.Wait()
	close(done)
	<-followed
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// The follower may stop short of the end when its last read hit the page limit.
	for {
		n := len(seen)
		if err := follow(); err != nil {
			t.Fatal(err)
		}
		if len(seen) == n {
			break
		}
	}
	if len(seen) != writers*each*2 {
		t.Fatalf("the follower saw %d events, want %d: seqs do not follow commit order", len(seen), writers*each*2)
	}
	count := map[[2]int]int{}
	for i, ev := range seen {
		if i > 0 && ev.Seq <= seen[i-1].Seq {
			t.Fatalf("seq %d after %d", ev.Seq, seen[i-1].Seq)
		}
		var m mark
		if err := json.Unmarshal(ev.Data, &m); err != nil {
			t.Fatal(err)
		}
		key := [2]int{m.W, m.I}
		if m.K != count[key] {
			t.Fatalf("write %v's event %d came as its event %d (seq %d)", key, m.K, count[key], ev.Seq)
		}
		count[key]++
	}
}

// failedWriteLeavesNothing: a write whose function fails leaves nothing of what it wrote,
// while a write committed beside it keeps all of its own (the service relies on both: an
// error after an insert undoes the insert and its events, and only that request's).
func failedWriteLeavesNothing(t *testing.T, e *env) {
	boom := errors.New("boom")
	start := e.lastSeq()
	var wg sync.WaitGroup
	results := make([]error, 2)
	for i, fail := range []bool{true, false} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = e.store.Write(e.ctx, func(tx app.Tx) error {
				if err := tx.CreateContact(e.newContact(e.org, "failed="+strconv.FormatBool(fail))); err != nil {
					return err
				}
				ev := app.StreamEvent{OrgID: e.org, Type: app.StreamContactCreated, Area: "contacts", Data: []byte(`{}`),
					CreatedAt: app.At(e.clock.Now())}
				if _, err := tx.InsertStreamEvent(ev); err != nil {
					return err
				}
				if fail {
					return boom
				}
				return nil
			})
		}()
	}
	wg.Wait()
	if !errors.Is(results[0], boom) || results[1] != nil {
		t.Fatalf("write results %v, want the failing write's own error and nil", results)
	}
	e.read(func(tx app.Tx) error {
		l, n, err := tx.ListContacts(e.org, app.ContactFilter{}, app.Page{Page: 1, Take: 10})
		if err != nil {
			return err
		}
		if n != 1 || len(l) != 1 || l[0].Name != "failed=false" {
			t.Errorf("contacts after one failed and one good write: %d %+v", n, l)
		}
		evs, err := tx.StreamEventsAfter(e.org, "", start, 10)
		if len(evs) != 1 {
			t.Errorf("%d stream events after one failed and one good write, want 1", len(evs))
		}
		return err
	})
}
