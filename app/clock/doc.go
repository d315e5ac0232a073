// Package clock is the time source every service and worker takes: the wall clock, and a
// manual clock that moves only when a test tells it to (with After for code that waits, and
// OnMove hooks that nudge the workers). app names them Clock, SystemClock and ManualClock.
package clock
