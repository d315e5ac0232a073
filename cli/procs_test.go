package cli

import (
	"io"
	"log/slog"
	"runtime"
	"testing"
)

// TestServeProcs: serve runs with at least minServeProcs Go processors, more when the machine
// gives more, and Go's own choice when GOMAXPROCS is set or a container's CPU quota made Go
// choose fewer processors than the machine has.
func TestServeProcs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		procs, cpus int
		set         bool
		want        int
	}{
		{1, 1, false, minServeProcs},
		{2, 2, false, minServeProcs},
		{minServeProcs - 1, minServeProcs - 1, false, minServeProcs},
		{minServeProcs, minServeProcs, false, minServeProcs},
		{8, 8, false, 8},
		{2, 2, true, 2},   // GOMAXPROCS=2
		{1, 8, false, 1},  // a quota of one CPU on 8 cores
		{2, 16, false, 2}, // a quota of two CPUs
	} {
		if got := serveProcs(c.procs, c.cpus, c.set); got != c.want {
			t.Errorf("serveProcs(%d, %d, %v) = %d, want %d", c.procs, c.cpus, c.set, got, c.want)
		}
	}
}

// TestRaiseProcs: raiseProcs sets what serveProcs says. Not parallel: it sets GOMAXPROCS for
// the whole test binary, and puts it back.
func TestRaiseProcs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	t.Setenv("GOMAXPROCS", "")
	runtime.GOMAXPROCS(runtime.NumCPU())
	want := max(runtime.NumCPU(), minServeProcs)
	if got := raiseProcs(log); got != want || runtime.GOMAXPROCS(0) != want {
		t.Fatalf("raiseProcs %d, GOMAXPROCS %d; want %d", got, runtime.GOMAXPROCS(0), want)
	}
	t.Setenv("GOMAXPROCS", "1")
	runtime.GOMAXPROCS(1)
	if got := raiseProcs(log); got != 1 || runtime.GOMAXPROCS(0) != 1 {
		t.Fatalf("with GOMAXPROCS=1 set: raiseProcs %d, GOMAXPROCS %d", got, runtime.GOMAXPROCS(0))
	}
}
