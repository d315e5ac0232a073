package fair

import (
	"slices"
	"strings"
	"testing"
)

// dueOf builds candidates named "org/queue/n", in the order given (oldest first).
func dueOf(ids ...string) []Due {
	var out []Due
	for _, id := range ids {
		parts := strings.Split(id, "/")
		out = append(out, Due{ID: id, Org: parts[0], Queue: parts[1]})
	}
	return out
}

func TestPickRoundRobin(t *testing.T) {
	// Org a's backlog is older than all of b's and c's; a has two endpoints.
	due := dueOf("a/1/1", "a/1/2", "a/1/3", "a/2/1", "a/2/2", "b/3/1", "b/3/2", "c/4/1")
	cases := []struct {
		name string
		room Room
		want []string
	}{
		{"one each, oldest organization first", Room{Limit: 3},
			[]string{"a/1/1", "b/3/1", "c/4/1"}},
		{"round-robin across organizations, then endpoints within one", Room{Limit: 6},
			[]string{"a/1/1", "b/3/1", "c/4/1", "a/2/1", "b/3/2", "a/1/2"}},
		{"everything when there is room", Room{Limit: 20},
			[]string{"a/1/1", "b/3/1", "c/4/1", "a/2/1", "b/3/2", "a/1/2", "a/2/2", "a/1/3"}},
		{"fewest in flight first", Room{Limit: 3, Org: map[string]int{"a": 2, "b": 1}},
			[]string{"c/4/1", "b/3/1", "a/1/1"}},
		{"per-organization cap counts what is in flight", Room{Limit: 20, PerOrg: 2, Org: map[string]int{"a": 1}},
			[]string{"b/3/1", "c/4/1", "a/1/1", "b/3/2"}},
		{"per-queue cap; the other endpoint of the organization still gets its turn",
			Room{Limit: 20, PerQueue: 1, Queue: map[string]int{"1": 1}},
			[]string{"a/2/1", "b/3/1", "c/4/1"}},
		{"an endpoint with less in flight goes first within its organization",
			Room{Limit: 2, Queue: map[string]int{"1": 3}},
			[]string{"a/2/1", "b/3/1"}},
		{"nothing when the room is full", Room{Limit: 0}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.room.Pick(due); !slices.Equal(got, c.want) {
				t.Fatalf("picked %v, want %v", got, c.want)
			}
		})
	}
}

func TestOrgShare(t *testing.T) {
	for _, c := range []struct{ configured, workers, want int }{
		{0, 16, 12}, {0, 8, 6}, {0, 4, 3}, {0, 1, 1}, {5, 16, 5}, {40, 16, 40},
	} {
		if got := OrgShare(c.configured, c.workers); got != c.want {
			t.Fatalf("OrgShare(%d, %d) = %d, want %d", c.configured, c.workers, got, c.want)
		}
	}
}
