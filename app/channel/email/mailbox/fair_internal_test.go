package mailbox

import (
	"fmt"
	"testing"
	"time"
)

// TestFairOrder: due mailboxes are taken organizations in turn, each organization's
// longest-waiting first, so one tenant's many mailboxes cannot fill every connection before
// another's one gets a turn.
func TestFairOrder(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &Poller{state: map[string]*entry{
		"a1": {org: "big", served: t0.Add(3 * time.Minute)},
		"a2": {org: "big", served: t0.Add(1 * time.Minute)},
		"a3": {org: "big", served: t0.Add(2 * time.Minute)},
		"a4": {org: "big", served: t0.Add(4 * time.Minute)},
		"b1": {org: "small", served: t0.Add(5 * time.Minute)},
		"c1": {org: "other", served: t0},
		"c2": {org: "other", served: t0.Add(6 * time.Minute)},
	}}
	got := p.fairOrder([]string{"a1", "a2", "a3", "a4", "b1", "c1", "c2"})
	if want := "[c1 a2 b1 c2 a3 a1 a4]"; fmt.Sprint(got) != want {
		t.Fatalf("order %v, want %v", got, want)
	}
}
