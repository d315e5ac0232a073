// Package clock is time as the service knows it: the API's timestamp (Time, RFC 3339 UTC with
// milliseconds in JSON and in the database, null when zero) and the time source every service
// and worker takes: the wall clock, and a manual clock that moves only when a test tells it to
// (with After for code that waits, and OnMove hooks that nudge the workers). app names them
// Time, Clock, SystemClock and ManualClock.
package clock
