package app

import (
	"log/slog"

	"wsapi/app/recovery"
)

// PanicError is a panic recovered while working on one item (app/recovery): it fails that
// item instead of the process; its stack is for the log only.
type PanicError = recovery.PanicError

// Safely runs fn and turns a panic inside it into a *PanicError, so that a background worker
// can record the item as failed and go on with the next one.
func Safely(fn func() error) error { return recovery.Safely(fn) }

// IsPanic tells whether err is (or wraps) a recovered panic, and answers it.
func IsPanic(err error) (*PanicError, bool) { return recovery.IsPanic(err) }

// LogFailure logs the failure of one item at error level, a recovered panic with its value
// and stack.
func LogFailure(log *slog.Logger, msg string, err error, args ...any) {
	recovery.LogFailure(log, msg, err, args...)
}
