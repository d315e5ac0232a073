// Package recovery turns a panic while working on one item (a delivery, a recipient, a
// knowledge content, a run, a janitor task) into an error that fails that item instead of the
// process, and logs it with its stack. app names it Safely, PanicError, IsPanic, LogFailure.
package recovery
