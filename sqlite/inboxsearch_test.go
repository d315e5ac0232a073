package sqlite

import (
	"slices"
	"testing"
)

func TestEachSeq(t *testing.T) {
	var got []int64
	n, err := eachSeq("7,0,123456789012345678,42", func(s int64) bool { got = append(got, s); return true })
	if err != nil || n != 4 || !slices.Equal(got, []int64{7, 0, 123456789012345678, 42}) {
		t.Fatalf("eachSeq = %v, %d, %v", got, n, err)
	}
	if n, err := eachSeq("", func(int64) bool { return true }); n != 0 || err != nil {
		t.Fatalf("empty list: %d, %v", n, err)
	}
	stopped := 0
	if n, _ := eachSeq("1,2,3", func(int64) bool { stopped++; return stopped < 2 }); n != 2 {
		t.Fatalf("read %d after fn said stop at the second", n)
	}
	for _, bad := range []string{"1,,2", "1,x", "-1", "1,2,", "1234567890123456789012"} {
		if _, err := eachSeq(bad, func(int64) bool { return true }); err == nil {
			t.Errorf("eachSeq(%q) took it", bad)
		}
	}
	var set seqSet
	for _, s := range []int64{0, 63, 64, 1000} {
		if w := int(s >> 6); w >= len(set) {
			set = append(set, make(seqSet, w+1-len(set))...)
		}
		set[s>>6] |= 1 << (s & 63)
	}
	for s, want := range map[int64]bool{0: true, 1: false, 63: true, 64: true, 65: false, 1000: true, 5000: false, -1: false} {
		if set.has(s) != want {
			t.Errorf("has(%d) = %v", s, !want)
		}
	}
}
