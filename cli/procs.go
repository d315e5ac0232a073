package cli

import (
	"log/slog"
	"os"
	"runtime"
)

// minServeProcs is the fewest Go processors serve runs with when GOMAXPROCS is not set.
const minServeProcs = 4

// raiseProcs gives serve at least minServeProcs Go processors (serveProcs says when) and
// answers how many it runs with. With one processor per core (Go's default), a request
// whose bytes just arrived waits for a processor while the workers' CPU-bound pieces (SQLite
// writes, parsing a mail) hold every one, until one blocks or is preempted after 10 ms: on 2
// cores that was the tail of a webhook's acknowledgement (bench/channels: p99 median 13.7 ms
// with 2, 9.0 ms with 4). With more processors than cores the kernel's scheduler, which lets
// a thread that just woke run soon, shares the cores instead (docs/decisions/go-processors.md).
func raiseProcs(log *slog.Logger) int {
	procs := runtime.GOMAXPROCS(0)
	want := serveProcs(procs, runtime.NumCPU(), os.Getenv("GOMAXPROCS") != "")
	if want != procs {
		runtime.GOMAXPROCS(want)
		log.Debug("Go processors raised", "from", procs, "to", want)
	}
	return want
}

// serveProcs is how many Go processors serve runs with: procs (Go's choice) raised to
// minServeProcs, unless GOMAXPROCS was set or Go chose fewer than the machine's cpus. Go
// chooses fewer when a container's CPU quota is lower (Go 1.25): there more busy threads
// than the quota would spend it early in each period and be throttled for the rest.
func serveProcs(procs, cpus int, set bool) int {
	if set || procs < cpus {
		return procs
	}
	return max(procs, minServeProcs)
}
