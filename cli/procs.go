package cli

import (
	"log/slog"
	"os"
	"runtime"
)

// minServeProcs is the fewest Go processors serve runs with when GOMAXPROCS is not set.
const minServeProcs = 4

// raiseProcs gives serve at least minServeProcs Go processors unless the environment sets
// GOMAXPROCS, and answers how many it runs with. With one processor per core (Go's default),
// a request whose bytes just arrived waits for a processor while the workers' CPU-bound
// pieces (SQLite writes, parsing a mail) hold every one, until one blocks or is preempted
// after 10 ms: on 2 cores that was the tail of a webhook's acknowledgement (bench/channels:
// p99 9.2-12.4 ms with 2, 5.1-7.5 ms with 4). With more processors than cores the kernel's
// scheduler, which lets a thread that just woke run soon, shares the cores instead
// (docs/decisions/go-processors.md).
func raiseProcs(log *slog.Logger) int {
	procs := runtime.GOMAXPROCS(0)
	if os.Getenv("GOMAXPROCS") != "" || procs >= minServeProcs {
		return procs
	}
	runtime.GOMAXPROCS(minServeProcs)
	log.Debug("Go processors raised", "from", procs, "to", minServeProcs)
	return minServeProcs
}
