//go:build unix

package cli

import (
	"log/slog"
	"syscall"
)

// fdHeadroom is what the process needs beside its connections: the database and its WAL and
// index, the log, the listeners, the workers' outbound connections.
const fdHeadroom = 128

// warnFileLimit says at start when the process may not open http.max_connections
// connections: past its file-descriptor limit, accept fails and new clients wait instead of
// the streams' budget answering them. Go raises the soft limit to the hard one at start,
// so the hard limit is what counts (docs/operations.md, "Streams").
func warnFileLimit(log *slog.Logger, maxConnections int) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return
	}
	if need := uint64(maxConnections) + fdHeadroom; lim.Cur < need {
		log.Warn("the file-descriptor limit is below http.max_connections: raise it (LimitNOFILE= in the systemd unit, ulimit -Hn, docker --ulimit nofile) or lower http.max_connections",
			"limit", lim.Cur, "hard_limit", lim.Max, "http.max_connections", maxConnections, "needed", need)
	}
}
