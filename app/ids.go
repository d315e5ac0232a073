package app

import (
	"context"
	"time"

	"wsapi/app/clock"
	"wsapi/app/ids"
)

// RandomBase62 returns n characters drawn uniformly from [0-9A-Za-z] by crypto/rand.
func RandomBase62(n int) string { return ids.RandomBase62(n) }

// NewID returns prefix + "_" + 20 base62 characters: 6 for the second it was made, so ids
// sort by time, and 14 at random (app/ids).
func NewID(prefix string) string { return ids.New(prefix) }

// Time is a timestamp of the API (app/clock): RFC 3339 UTC with milliseconds in JSON and in
// the database, null when zero. TimeFormat is its form.
type Time = clock.Time

// TimeFormat is RFC 3339 in UTC with milliseconds, the one timestamp form of the API.
const TimeFormat = clock.TimeFormat

// At wraps t, truncated to the millisecond the API shows.
func At(t time.Time) Time { return clock.At(t) }

// ParseTime reads an RFC 3339 time.
func ParseTime(s string) (Time, error) { return clock.ParseTime(s) }

// FormatTime renders t in the API's timestamp form.
func FormatTime(t time.Time) string { return clock.FormatTime(t) }

// The clocks are app/clock's: Clock gives the current time (services take one so tests move
// time instead of sleeping), SystemClock is the wall clock, ManualClock moves only when a test
// tells it to, and Sleep waits on either.
type (
	Clock       = clock.Clock
	SystemClock = clock.System
	ManualClock = clock.Manual
)

// NewManualClock starts a manual clock at t.
func NewManualClock(t time.Time) *ManualClock { return clock.NewManual(t) }

// Sleep waits d on c (on the manual clock, until a test moves it past d) or until ctx ends.
func Sleep(ctx context.Context, c Clock, d time.Duration) error { return clock.Sleep(ctx, c, d) }
