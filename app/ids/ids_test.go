package ids

import (
	"regexp"
	"slices"
	"testing"
	"time"
)

// TestIDsSortByTheSecondTheyWereMade: an id is its prefix, six base62 characters of the
// second and fourteen random ones; ids of later seconds sort after earlier ones, whatever
// their random part, so new rows land at the end of the indexes keyed by them.
func TestIDsSortByTheSecondTheyWereMade(t *testing.T) {
	shape := regexp.MustCompile(`^ct_[0-9A-Za-z]{20}$`)
	id := New("ct")
	if !shape.MatchString(id) {
		t.Fatalf("id %q", id)
	}
	if got, want := id[3:9], idTime(time.Now().Unix()); got != want && got != idTime(time.Now().Unix()-1) {
		t.Fatalf("time part %q, want %q", got, want)
	}
	seconds := []int64{0, 1, 61, 62, 3843, 1_700_000_000, 1_700_000_001, 1_800_000_000, 62*62*62*62*62*62 - 1}
	var ids []string
	for _, s := range seconds {
		ids = append(ids, idTime(s)+RandomBase62(14))
	}
	if !slices.IsSorted(ids) {
		t.Fatalf("ids of increasing seconds do not sort: %v", ids)
	}
	if idTime(0) != "000000" || idTime(62) != "000010" || idTime(62*62*62*62*62*62-1) != "zzzzzz" {
		t.Fatalf("idTime: %s %s %s", idTime(0), idTime(62), idTime(62*62*62*62*62*62-1))
	}
	seen := map[string]bool{}
	for range 10000 {
		r := New("ct")[9:]
		if seen[r] {
			t.Fatalf("random part %q drawn twice", r)
		}
		seen[r] = true
	}
}
