package recovery

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
)

// PanicError is a panic recovered while working on one item (a delivery, a recipient, a
// knowledge content, a janitor task). It fails that item instead of the process; the stack
// is for the log only, never for a client or a stored error.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Safely runs fn and turns a panic inside it into a *PanicError, so that a background worker
// can record the item as failed and go on with the next one.
func Safely(fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return fn()
}

// IsPanic tells whether err is (or wraps) a recovered panic, and answers it.
func IsPanic(err error) (*PanicError, bool) {
	var pe *PanicError
	ok := errors.As(err, &pe)
	return pe, ok
}

// LogFailure logs the failure of one item at error level; a recovered panic is logged with
// its value and stack, so the bug can be found although the item only says it failed.
func LogFailure(log *slog.Logger, msg string, err error, args ...any) {
	if pe, ok := IsPanic(err); ok {
		log.Error(msg, append(args, "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))...)
		return
	}
	log.Error(msg, append(args, "err", err)...)
}
