package budget_test

import (
	"errors"
	"sync"
	"testing"

	"wsapi/app/budget"
)

func full(t *testing.T, err error, kind string, limit int) {
	t.Helper()
	var fe *budget.FullError
	if !errors.As(err, &fe) || fe.Kind != kind || fe.Limit != limit {
		t.Fatalf("err %v, want the %q cap of %d", err, kind, limit)
	}
}

func TestCapsPerKindAtTheEdge(t *testing.T) {
	t.Parallel()
	b := budget.New(0, map[string]int{"key": 2, "ip": 3})
	k1, k2 := budget.Key{Kind: "key", Value: "k1"}, budget.Key{Kind: "key", Value: "k2"}
	ip := budget.Key{Kind: "ip", Value: "203.0.113.7"}
	r1, err := b.Acquire(k1, ip)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Acquire(k1, ip); err != nil {
		t.Fatalf("second slot of k1: %v", err)
	}
	_, err = b.Acquire(k1, ip) // the key's third: refused, and nothing taken under ip
	full(t, err, "key", 2)
	if _, err := b.Acquire(k2, ip); err != nil { // the ip's third, by another key
		t.Fatalf("third slot of the ip: %v", err)
	}
	_, err = b.Acquire(k2, ip)
	full(t, err, "ip", 3)
	if got := b.HeldBy(k2); got != 1 {
		t.Fatalf("k2 holds %d after a refusal, want 1", got)
	}
	r1()
	r1() // a second release gives nothing back twice
	if got := b.HeldBy(ip); got != 2 {
		t.Fatalf("ip holds %d after one release, want 2", got)
	}
	if _, err := b.Acquire(k2, ip); err != nil {
		t.Fatalf("after a release: %v", err)
	}
	if got := b.Held(); got != 3 {
		t.Fatalf("held %d, want 3", got)
	}
}

func TestServerWideCapAndLaterKinds(t *testing.T) {
	t.Parallel()
	b := budget.New(3, nil)
	b.SetLimit("session", 1)
	var releases []func()
	for i := range 3 {
		r, err := b.Acquire(budget.Key{Kind: "member", Value: string(rune('a' + i))})
		if err != nil {
			t.Fatalf("slot %d: %v", i, err)
		}
		releases = append(releases, r)
	}
	_, err := b.Acquire(budget.Key{Kind: "member", Value: "z"})
	full(t, err, "", 3)
	releases[0]()
	s := budget.Key{Kind: "session", Value: "s1"}
	if _, err := b.Acquire(s); err != nil {
		t.Fatal(err)
	}
	releases[1]()
	_, err = b.Acquire(s)
	full(t, err, "session", 1)
}

func TestConcurrentHoldersNeverPassTheCap(t *testing.T) {
	t.Parallel()
	b := budget.New(50, map[string]int{"key": 7})
	var wg sync.WaitGroup
	var mu sync.Mutex
	granted := map[string]int{}
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := string(rune('a' + i%4))
			if _, err := b.Acquire(budget.Key{Kind: "key", Value: v}); err == nil {
				mu.Lock()
				granted[v]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for v, n := range granted {
		if n != 7 {
			t.Fatalf("key %s got %d slots, want exactly 7", v, n)
		}
	}
	if b.Held() != 28 {
		t.Fatalf("held %d, want 28", b.Held())
	}
}
