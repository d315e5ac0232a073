//go:build !unix

package cli

import "log/slog"

// warnFileLimit: only unix systems have a per-process file-descriptor limit to check.
func warnFileLimit(*slog.Logger, int) {}
