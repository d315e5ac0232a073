package vcache

import (
	"fmt"
	"sync"
	"testing"
)

// TestGetHoldsOnlyAtTheVersionRead: an entry answers at the version it was stored at and
// at no other, older or newer.
func TestGetHoldsOnlyAtTheVersionRead(t *testing.T) {
	t.Parallel()
	c := New[string, string](10)
	c.Put("a", 3, "three", 1)
	for _, tc := range []struct {
		key     string
		version int64
		want    string
		ok      bool
	}{
		{"a", 3, "three", true},
		{"a", 2, "", false},
		{"a", 4, "", false},
		{"b", 3, "", false},
	} {
		if got, ok := c.Get(tc.key, tc.version); got != tc.want || ok != tc.ok {
			t.Errorf("Get(%s, %d) = %q, %v; want %q, %v", tc.key, tc.version, got, ok, tc.want, tc.ok)
		}
	}
	// A put at another version replaces the entry, even an older one (the next Get reads again).
	c.Put("a", 2, "two", 1)
	if _, ok := c.Get("a", 3); ok {
		t.Error("the replaced version still answers")
	}
	if got, ok := c.Get("a", 2); !ok || got != "two" {
		t.Errorf("Get(a, 2) = %q, %v", got, ok)
	}
	if c.Len() != 1 || c.Held() != 1 {
		t.Errorf("len %d held %d after a replace, want 1 and 1", c.Len(), c.Held())
	}
}

// TestLeastRecentlyUsedGoFirst: past the limit of weight, the entries used longest ago are
// dropped, and a Get counts as a use.
func TestLeastRecentlyUsedGoFirst(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		steps func(c *Cache[string, int])
		kept  []string
		held  int
	}{
		{"under the limit keeps all", func(c *Cache[string, int]) {
			c.Put("a", 1, 1, 3)
			c.Put("b", 1, 2, 3)
		}, []string{"a", "b"}, 6},
		{"the oldest goes", func(c *Cache[string, int]) {
			c.Put("a", 1, 1, 4)
			c.Put("b", 1, 2, 4)
			c.Put("c", 1, 3, 4)
		}, []string{"b", "c"}, 8},
		{"a get saves an entry", func(c *Cache[string, int]) {
			c.Put("a", 1, 1, 4)
			c.Put("b", 1, 2, 4)
			c.Get("a", 1)
			c.Put("c", 1, 3, 4)
		}, []string{"a", "c"}, 8},
		{"a miss at another version is no use", func(c *Cache[string, int]) {
			c.Put("a", 1, 1, 4)
			c.Put("b", 1, 2, 4)
			c.Get("a", 2)
			c.Put("c", 1, 3, 4)
		}, []string{"b", "c"}, 8},
		{"a heavy entry pushes out several", func(c *Cache[string, int]) {
			c.Put("a", 1, 1, 3)
			c.Put("b", 1, 2, 3)
			c.Put("c", 1, 3, 3)
			c.Put("d", 1, 4, 9)
		}, []string{"d"}, 9},
		{"heavier than the limit is not kept", func(c *Cache[string, int]) {
			c.Put("a", 1, 1, 3)
			c.Put("big", 1, 2, 11)
		}, []string{"a"}, 3},
		{"a heavier replacement evicts others, not itself", func(c *Cache[string, int]) {
			c.Put("a", 1, 1, 3)
			c.Put("b", 1, 2, 3)
			c.Put("a", 2, 3, 9)
		}, []string{"a"}, 9},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New[string, int](10)
			tc.steps(c)
			var kept []string
			for _, k := range []string{"a", "b", "c", "d", "big"} {
				c.mu.Lock()
				_, ok := c.entries[k]
				c.mu.Unlock()
				if ok {
					kept = append(kept, k)
				}
			}
			if fmt.Sprint(kept) != fmt.Sprint(tc.kept) || c.Held() != tc.held || c.Len() != len(tc.kept) {
				t.Errorf("kept %v held %d len %d; want %v held %d", kept, c.Held(), c.Len(), tc.kept, tc.held)
			}
		})
	}
}

// TestConcurrentUse: readers and writers of overlapping keys keep the weight accounting
// whole (run under -race).
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	c := New[int, int](50)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				k := (g*7 + i) % 40
				if v, ok := c.Get(k, int64(i%3)); ok && v != k {
					t.Errorf("key %d holds %d", k, v)
				}
				c.Put(k, int64(i%3), k, 1+k%4)
			}
		}()
	}
	wg.Wait()
	sum := 0
	c.mu.Lock()
	for _, el := range c.entries {
		sum += el.Value.(*entry[int, int]).weight
	}
	c.mu.Unlock()
	if sum != c.Held() || c.Held() > 50 || c.Len() != c.lru.Len() {
		t.Errorf("held %d, entries weigh %d, %d entries and %d in the list", c.Held(), sum, c.Len(), c.lru.Len())
	}
}
