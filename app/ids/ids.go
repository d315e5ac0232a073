package ids

import (
	"crypto/rand"
	"time"
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

// New returns prefix + "_" + 20 base62 characters, so an id tells its type at a glance:
// 6 for the second it was made (base62 in ASCII order, so ids sort by time) and 14 drawn at
// random (about 83 bits, over the 80 that DESIGN.md asks for). The time prefix puts the ids
// of new rows next to each other in every index keyed by them: inserts write the index's
// last pages instead of a random page each (with fully random ids, each new contact wrote
// four pages of its own to the WAL), as ULIDs and KSUIDs do. The second is not hidden:
// anyone who can read an id can tell when it was made.
func New(prefix string) string {
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
