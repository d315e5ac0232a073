package cli

import (
	"errors"
	"testing"

	"wsapi/app/budget"
)

// TestStreamCapLeavesRoomForPlainRequests: events.max_streams may take at most nine tenths of
// http.max_connections, at the edge exactly.
func TestStreamCapLeavesRoomForPlainRequests(t *testing.T) {
	t.Parallel()
	c := DefaultConfig().Events
	for _, tc := range []struct {
		conns, streams int
		ok             bool
	}{{10000, 9000, true}, {10000, 9001, false}, {10, 9, true}, {10, 10, false}, {5, 4, true}, {5, 5, false}} {
		c.MaxStreams = tc.streams
		if err := c.validateStreams(tc.conns); (err == nil) != tc.ok {
			t.Errorf("%d streams of %d connections: err %v, want ok %v", tc.streams, tc.conns, err, tc.ok)
		}
	}
}

// TestStreamBudgetFromConfig: the budget cli builds caps each kind by its key.
func TestStreamBudgetFromConfig(t *testing.T) {
	t.Parallel()
	c := EventsConfig{MaxStreams: 3, MaxStreamsPerKey: 1, MaxStreamsPerMember: 2, MaxStreamsPerIP: 2}
	b := streamBudget(c)
	k := func(kind, v string) budget.Key { return budget.Key{Kind: kind, Value: v} }
	var full *budget.FullError
	if _, err := b.Acquire(k(budget.KindKey, "a"), k(budget.KindMember, "m"), k(budget.KindIP, "1")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Acquire(k(budget.KindKey, "a"), k(budget.KindMember, "n"), k(budget.KindIP, "2")); !errors.As(err, &full) || full.Kind != budget.KindKey {
		t.Fatalf("second stream of a key capped at 1: %v", err)
	}
	if _, err := b.Acquire(k(budget.KindKey, "b"), k(budget.KindMember, "m"), k(budget.KindIP, "1")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Acquire(k(budget.KindKey, "c"), k(budget.KindMember, "m"), k(budget.KindIP, "3")); !errors.As(err, &full) || full.Kind != budget.KindMember {
		t.Fatalf("third stream of a member capped at 2: %v", err)
	}
	if _, err := b.Acquire(k(budget.KindKey, "c"), k(budget.KindMember, "o"), k(budget.KindIP, "1")); !errors.As(err, &full) || full.Kind != budget.KindIP {
		t.Fatalf("third stream of an IP capped at 2: %v", err)
	}
	if _, err := b.Acquire(k(budget.KindKey, "d"), k(budget.KindMember, "p"), k(budget.KindIP, "4")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Acquire(k(budget.KindKey, "e"), k(budget.KindMember, "q"), k(budget.KindIP, "5")); !errors.As(err, &full) || full.Kind != "" {
		t.Fatalf("fourth stream of a server capped at 3: %v", err)
	}
}
