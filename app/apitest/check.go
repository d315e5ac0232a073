package apitest

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"wsapi/cli"
)

// Unlimited lifts the rate limit for tests that make hundreds of requests (the limiter runs
// on the manual clock, so it never refills).
func Unlimited(c *cli.Config) { c.HTTP.RateLimitPerMinute = 1 << 30 }

// NoRuns holds assistant runs off (a year's debounce), for tests that shape chats by hand: an
// answer arriving under them would change what they read (runs are tested in app/assist).
func NoRuns(c *cli.Config) { c.Assistants.Debounce = 365 * 24 * time.Hour }

// FilesIn keeps the database and the secrets key in dir, so that a second environment (the
// next process of a restart) opens the same files.
func FilesIn(dir string) func(*cli.Config) {
	return func(c *cli.Config) {
		c.DB.Path = filepath.Join(dir, "app.db")
		c.Secrets.KeyFile = filepath.Join(dir, "app.key")
	}
}

// Count answers the pagination-count header of a list.
func (e *Env) Count(key, path string) int {
	e.T.Helper()
	res := e.Do("GET", path, key, nil).Expect(200)
	n, err := strconv.Atoi(res.Header.Get("pagination-count"))
	if err != nil {
		e.T.Fatalf("GET %s: pagination-count %q", path, res.Header.Get("pagination-count"))
	}
	return n
}

// SameSet fails unless got and want hold the same strings, counted, in any order.
func SameSet(t testing.TB, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

var idRE = regexp.MustCompile(`^([a-z]+)_([0-9A-Za-z]{20,})$`)

// CheckID fails unless id is a string with the prefix and at least 20 base62 characters.
func CheckID(t testing.TB, id any, prefix string) {
	t.Helper()
	s, _ := id.(string)
	if m := idRE.FindStringSubmatch(s); m == nil || m[1] != prefix {
		t.Errorf("id %q: want %s_ and at least 20 base62 characters", s, prefix)
	}
}
