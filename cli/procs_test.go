package cli

import (
	"io"
	"log/slog"
	"runtime"
	"testing"
)

// TestRaiseProcs: serve runs with at least minServeProcs Go processors, more when the
// machine gives more, and exactly what GOMAXPROCS says when it is set. Not parallel: it sets
// GOMAXPROCS for the whole test binary, and puts it back.
func TestRaiseProcs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	t.Setenv("GOMAXPROCS", "")
	for _, before := range []int{1, minServeProcs - 1, minServeProcs, minServeProcs + 3} {
		runtime.GOMAXPROCS(before)
		want := max(before, minServeProcs)
		if got := raiseProcs(log); got != want || runtime.GOMAXPROCS(0) != want {
			t.Fatalf("from %d: raiseProcs %d, GOMAXPROCS %d; want %d", before, got, runtime.GOMAXPROCS(0), want)
		}
	}
	t.Setenv("GOMAXPROCS", "1")
	runtime.GOMAXPROCS(1)
	if got := raiseProcs(log); got != 1 || runtime.GOMAXPROCS(0) != 1 {
		t.Fatalf("with GOMAXPROCS=1 set: raiseProcs %d, GOMAXPROCS %d", got, runtime.GOMAXPROCS(0))
	}
}
