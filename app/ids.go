package app

import (
	"context"
	"crypto/rand"
	"time"

	"wsapi/app/clock"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// RandomBase62 returns n characters drawn uniformly from [0-9A-Za-z] by crypto/rand.
func RandomBase62(n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, n+n/2+8)
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			panic("app: crypto/rand failed: " + err.Error())
		}
		for _, b := range buf {
			// 248 = 4*62: bytes at or above it are dropped so every character is equally likely.
			if b < 248 && len(out) < n {
				out = append(out, base62[b%62])
			}
		}
	}
	return string(out)
}

// NewID returns prefix + "_" + 20 base62 characters, so an id tells its type at a glance:
// 6 for the second it was made (base62 in ASCII order, so ids sort by time) and 14 drawn at
// random (about 83 bits, over the 80 that DESIGN.md asks for). The time prefix puts the ids
// of new rows next to each other in every index keyed by them: inserts write the index's
// last pages instead of a random page each (with fully random ids, each new contact wrote
// four pages of its own to the WAL), as ULIDs and KSUIDs do. The second is not hidden:
// anyone who can read an id can tell when it was made.
func NewID(prefix string) string {
	return prefix + "_" + idTime(time.Now().Unix()) + RandomBase62(14)
}

// idTime is the second s in 6 base62 digits, most significant first (until the year 3770).
func idTime(s int64) string {
	var b [6]byte
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = base62[s%62]
		s /= 62
	}
	return string(b[:])
}

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
